import type { CapabilityDefinition } from '../definition.ts';
import { journalTimeParam, objectSchema, unitParam, unitTarget } from './params.ts';

export const JOURNAL_PRIORITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'] as const;
export const MAX_LOG_LINES = 1000;
export const MAX_GREP_LENGTH = 128;

/** Reads one unit's journal; personal identifiers and credential-like values are masked by default. */
export const logsQuery: CapabilityDefinition = {
  name: 'logs.query',
  description: 'Reads recent journal entries of one systemd unit, bounded in time and line count, with identifiers masked.',
  readOnly: true,
  idempotent: true,
  timeoutSeconds: 30,
  paramsSchema: objectSchema(
    {
      unit: unitParam,
      since: journalTimeParam,
      until: journalTimeParam,
      lines: { type: 'integer', minimum: 1, maximum: MAX_LOG_LINES },
      priority: {
        type: 'string',
        description: 'a journal priority name (emerg to debug) or its number 0-7',
        enum: [...JOURNAL_PRIORITIES, '0', '1', '2', '3', '4', '5', '6', '7'],
      },
      grep: {
        type: 'string',
        description: 'a single-line search pattern of at most 128 characters',
        minLength: 1,
        maxLength: MAX_GREP_LENGTH,
        pattern: '^[^\\u0000-\\u001f\\u007f]+$',
      },
    },
    ['unit'],
  ),
  target: unitTarget,
  locked: false,
  cost: { wall_seconds: 2, network_ops: 0, money: 0 },
  observes: ['unit', 'lines', 'truncated', 'masked'],
};

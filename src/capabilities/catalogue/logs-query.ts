import type { CapabilityModule } from '../module.ts';
import { JOURNAL_PRIORITIES, MAX_GREP_LENGTH, MAX_LOG_LINES, journalTimeParam, journalUnitParam, objectSchema, unitTarget } from './params.ts';

/** Reads one unit's journal; personal identifiers and credential-like values are masked by default. */
export const logsQuery: CapabilityModule = {
  definition: {
    name: 'logs.query',
    description: 'Reads recent journal entries of one systemd unit, bounded in time and line count, with identifiers masked.',
    readOnly: true,
    idempotent: true,
    timeoutSeconds: 30,
    paramsSchema: objectSchema(
      {
        unit: journalUnitParam,
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
  },
  async implement(environment) {
    const { logsQueryImplementation } = await import('../host/logs-query.ts');
    return logsQueryImplementation({ runner: await environment.runner() });
  },
  example: (host) => {
    host.setClock('2026-12-02T11:00:00Z');
    host.addJournal('example.service', [{ time: '2026-12-02T10:59:00Z', message: 'login by alice@example.com' }]);
    return { unit: 'example.service', since: '-1h' };
  },
};

// The closed set of host commands Praxis can run, as data, and the one function that turns such
// a value into an argument vector. Nothing here ever holds a command line as a string: a
// command is a program from a two-word vocabulary, an operation from that program's own short
// list, and typed arguments that are checked again here, whatever the caller already checked.

import { CapabilityError } from '../implementation.ts';
import { checkRestartableUnit, checkUnitName, JOURNAL_UNIT_TYPES, UNIT_TYPES, type UnitType } from '../unit-name.ts';

export type HostProgram = 'systemctl' | 'journalctl';

export const JOURNAL_PRIORITY_VALUES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug', '0', '1', '2', '3', '4', '5', '6', '7'] as const;
export type JournalPriority = (typeof JOURNAL_PRIORITY_VALUES)[number];

/** Hard limits of the journal operation, independent of any capability's own (lower) ones. */
export const JOURNAL_MAX_LINES = 10_000;
export const JOURNAL_MAX_GREP_LENGTH = 128;

export interface ServiceShowCommand {
  program: 'systemctl';
  operation: 'show';
  unit: string;
}

export interface ServiceRestartCommand {
  program: 'systemctl';
  operation: 'restart';
  unit: string;
}

export interface JournalReadCommand {
  program: 'journalctl';
  operation: 'read';
  unit: string;
  lines: number;
  /** A journal time in one of the forms `JOURNAL_TIME` accepts. */
  since?: string;
  until?: string;
  priority?: JournalPriority;
  grep?: string;
}

export type HostCommand = ServiceShowCommand | ServiceRestartCommand | JournalReadCommand;

interface OperationRule {
  /** True when the operation changes nothing, so a retry can never repeat a side effect. */
  readOnly: boolean;
}

/** The allow-list: every program and, per program, every operation it may perform. */
export const HOST_OPERATIONS: Readonly<Record<HostProgram, Readonly<Record<string, OperationRule>>>> = Object.freeze({
  systemctl: Object.freeze({ show: { readOnly: true }, restart: { readOnly: false } }),
  journalctl: Object.freeze({ read: { readOnly: true } }),
});

/**
 * The properties `systemctl show` is asked for (systemd prints them in its own order). One list
 * for both readers: service.status uses the first five; service.restart reads the rest (Id,
 * SuccessAction, Triggers and the dependencies a start pulls in) to see what a restart would
 * really start (restart-reach.ts).
 */
export const SHOW_PROPERTIES = [
  'LoadState',
  'ActiveState',
  'SubState',
  'StateChangeTimestamp',
  'MainPID',
  'Id',
  'SuccessAction',
  'Triggers',
  'Requires',
  'Wants',
  'BindsTo',
  'Upholds',
  'OnSuccess',
] as const;

/**
 * Time bounds the journal operation passes on. The capability converts what callers write
 * (ISO-8601 among others) into one of these; the runner accepts nothing else:
 * `YYYY-MM-DD`, `YYYY-MM-DD HH:MM`, `YYYY-MM-DD HH:MM:SS[.ffffff]`, or `-<n><s|min|h|d>`.
 */
export const JOURNAL_TIME = /^(?:\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?: (?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?)?|-[1-9]\d{0,3}(?:s|min|h|d))$/;

function refuse(message: string): never {
  throw new CapabilityError('command_refused', message, false);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The allow-list rule of a command, or a refusal when its program or operation is not on it. */
export function operationRule(command: unknown): OperationRule {
  if (!isRecord(command)) refuse('a host command must be a structured value');
  const { program, operation } = command;
  if (typeof program !== 'string' || !Object.hasOwn(HOST_OPERATIONS, program)) {
    refuse(`the program ${JSON.stringify(program)} is not on the allow-list (systemctl, journalctl)`);
  }
  const operations = HOST_OPERATIONS[program as HostProgram];
  if (typeof operation !== 'string' || !Object.hasOwn(operations, operation)) {
    refuse(`${program} may not perform the operation ${JSON.stringify(operation)}`);
  }
  return operations[operation]!;
}

function checkedUnit(value: unknown, types: readonly UnitType[] = UNIT_TYPES): string {
  const problem = checkUnitName(value, types);
  if (problem !== null) refuse(`refused unit name: ${problem}`);
  return value as string;
}

function checkedKeys(command: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(command)) {
    if (!allowed.includes(key)) refuse(`the host command carries an unexpected field "${key}"`);
  }
}

function checkedTime(name: string, value: unknown): string {
  if (typeof value !== 'string' || !JOURNAL_TIME.test(value)) refuse(`${name} is not a journal time the runner accepts`);
  return value;
}

/**
 * The exact argument vector (without the program) for a command. Throws a `command_refused`
 * CapabilityError for anything outside the allow-list or with an argument out of shape;
 * nothing has run when it throws.
 */
export function argvOf(command: HostCommand): string[] {
  operationRule(command);
  const raw = command as unknown as Record<string, unknown>;
  switch (command.operation) {
    case 'show': {
      checkedKeys(raw, ['program', 'operation', 'unit']);
      const unit = checkedUnit(command.unit);
      return ['show', `--property=${SHOW_PROPERTIES.join(',')}`, '--no-pager', '--', unit];
    }
    case 'restart': {
      checkedKeys(raw, ['program', 'operation', 'unit']);
      const problem = checkRestartableUnit(command.unit);
      if (problem !== null) refuse(`refused unit name: ${problem}`);
      const unit = command.unit;
      // --no-block: queue the job and return; whether the unit came up is a later observation.
      return ['restart', '--no-block', '--no-ask-password', '--no-pager', '--', unit];
    }
    case 'read': {
      checkedKeys(raw, ['program', 'operation', 'unit', 'lines', 'since', 'until', 'priority', 'grep']);
      const unit = checkedUnit(command.unit, JOURNAL_UNIT_TYPES);
      const { lines, since, until, priority, grep } = command;
      if (!Number.isSafeInteger(lines) || lines < 1 || lines > JOURNAL_MAX_LINES) {
        refuse(`lines must be an integer from 1 to ${JOURNAL_MAX_LINES}`);
      }
      // Every value travels glued to its option as one argument, so it can never be read as
      // an option of its own, whatever characters it starts with.
      // --reverse: newest entry first, always. journalctl 252 prints `--lines` with `--grep`
      // newest-first whatever else it is told (and chronologically without --grep), so asking
      // for one order every time is the only way to know which order came back; logs.query
      // turns the entries back into time order.
      const argv = ['--no-pager', '--quiet', '--output=short-iso', '--reverse', `--unit=${unit}`, `--lines=${lines}`];
      if (since !== undefined) argv.push(`--since=${checkedTime('since', since)}`);
      if (until !== undefined) argv.push(`--until=${checkedTime('until', until)}`);
      if (priority !== undefined) {
        if (!(JOURNAL_PRIORITY_VALUES as readonly unknown[]).includes(priority)) refuse('priority is not a journal priority');
        argv.push(`--priority=${priority}`);
      }
      if (grep !== undefined) {
        if (typeof grep !== 'string' || grep.length === 0 || grep.length > JOURNAL_MAX_GREP_LENGTH) {
          refuse(`grep must be a pattern of 1 to ${JOURNAL_MAX_GREP_LENGTH} characters`);
        }
        if (/[\u0000-\u001f\u007f]/.test(grep)) refuse('grep must not contain control characters');
        argv.push(`--grep=${grep}`);
      }
      return argv;
    }
    default:
      return refuse('the host command has no known operation');
  }
}

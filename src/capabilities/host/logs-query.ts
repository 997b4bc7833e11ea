// logs.query: a bounded read of one unit's journal. Every parameter is checked again here
// (the schema already did) and turned into the runner's own narrow forms; the output is
// masked before it leaves this function and is marked low-trust, because log lines are
// written by whatever runs on the host.

import type { JsonObject } from '../../core/plan.ts';
import { JOURNAL_PRIORITIES, MAX_GREP_LENGTH, MAX_LOG_LINES } from '../catalogue/params.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import type { JournalPriority, JournalReadCommand } from './commands.ts';
import { JOURNAL_UNIT_TYPES } from '../unit-name.ts';
import { checkedUnit, commandFailure, invalidParams } from './failures.ts';
import { mask } from './masking.ts';
import type { CommandResult, CommandRunner } from './runner.ts';

export const LOGS_QUERY_TIMEOUT_MS = 25_000;
export const DEFAULT_LOG_LINES = 100;

export interface LogLines extends JsonObject {
  unit: string;
  lines: string[];
  /** True when the output cap cut the answer short. */
  truncated: boolean;
  masked: true;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const PLAIN = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const RELATIVE = /^-[1-9]\d{0,3}(?:s|min|h|d)$/;

export interface JournalTime {
  /** The form handed to journalctl. */
  value: string;
  /** Milliseconds since the epoch for absolute times, to compare since with until; null for relative ones. */
  at: number | null;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * A caller's time bound in the runner's form. Relative times (`-15min`) pass as they are;
 * absolute ones are checked against the calendar and written as `YYYY-MM-DD HH:MM:SS[.f]` in
 * UTC (the runner runs journalctl with TZ=UTC). An ISO time with an offset is converted to
 * UTC; one without an offset, like the plain `YYYY-MM-DD HH:MM` form, is read as UTC.
 * Returns null for anything else.
 */
export function toJournalTime(value: string): JournalTime | null {
  if (RELATIVE.test(value)) return { value, at: null };
  const iso = ISO.exec(value);
  const plain = iso ? null : PLAIN.exec(value);
  const m = iso ?? plain;
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) => (part === undefined ? undefined : Number(part)));
  const fraction = iso ? (iso[7] ?? '') : '';
  const zone = iso ? iso[8] : undefined;
  if (h! > 23 || mi! > 59 || s! > 59) return null;
  const local = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const check = new Date(local);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo! - 1 || check.getUTCDate() !== d) return null;
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.replace(':', '');
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5));
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  const utc = new Date(local - offsetMinutes * 60_000);
  const text =
    `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ` + `${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}${fraction}`;
  const at = utc.getTime() + (fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0);
  return { value: text, at };
}

function optionalString(params: JsonObject, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') invalidParams(`${name} must be a string`);
  return value;
}

/** The journal command for schema-valid parameters, checked again; throws invalid_params. */
export function journalCommand(params: JsonObject): JournalReadCommand {
  const unit = checkedUnit(params.unit, JOURNAL_UNIT_TYPES);
  const command: JournalReadCommand = { program: 'journalctl', operation: 'read', unit, lines: DEFAULT_LOG_LINES };

  if (params.lines !== undefined) {
    const lines = params.lines;
    if (typeof lines !== 'number' || !Number.isInteger(lines) || lines < 1 || lines > MAX_LOG_LINES) {
      invalidParams(`lines must be an integer from 1 to ${MAX_LOG_LINES}`);
    }
    command.lines = lines;
  }

  const times: Partial<Record<'since' | 'until', JournalTime>> = {};
  for (const name of ['since', 'until'] as const) {
    const raw = optionalString(params, name);
    if (raw === undefined) continue;
    const time = toJournalTime(raw);
    if (time === null) invalidParams(`${name} must be an ISO-8601 time, "YYYY-MM-DD[ HH:MM[:SS]]" or a relative time such as -15min`);
    times[name] = time;
    command[name] = time.value;
  }
  if (times.since?.at != null && times.until?.at != null && times.since.at > times.until.at) {
    invalidParams('since is later than until');
  }

  const priority = optionalString(params, 'priority');
  if (priority !== undefined) {
    const allowed: readonly string[] = [...JOURNAL_PRIORITIES, '0', '1', '2', '3', '4', '5', '6', '7'];
    if (!allowed.includes(priority)) invalidParams(`priority must be one of ${allowed.join(', ')}`);
    command.priority = priority as JournalPriority;
  }

  const grep = optionalString(params, 'grep');
  if (grep !== undefined) {
    if (grep.length === 0 || grep.length > MAX_GREP_LENGTH) invalidParams(`grep must be 1 to ${MAX_GREP_LENGTH} characters`);
    if (/[\u0000-\u001f\u007f]/.test(grep)) invalidParams('grep must be a single line without control characters');
    command.grep = grep;
  }
  return command;
}

/**
 * The entries of short-iso output, each with its continuation lines (journalctl indents the
 * lines of a multi-line message under the first; an entry's head never starts with a space).
 */
export function journalEntries(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (line === '') continue;
    if (entries.length > 0 && line.startsWith(' ')) entries[entries.length - 1] += line;
    else entries.push(line);
  }
  return entries;
}

/**
 * Journal output (newest entry first, as the read operation asks for it) as masked lines in
 * time order. When the output cap cut it short, the cut line goes, and so does the oldest
 * entry left unless the cut fell in the next entry's head: it may have lost continuation lines,
 * and nothing partial is presented as whole.
 */
export function maskedLines(stdout: string, truncated: boolean): string[] {
  let text = stdout;
  let lastIsWhole = true;
  if (truncated) {
    const lastBreak = text.lastIndexOf('\n');
    const cut = text.slice(lastBreak + 1);
    text = lastBreak >= 0 ? text.slice(0, lastBreak + 1) : '';
    // The last entry kept is whole only when the cut fell inside the head of the next one.
    lastIsWhole = cut !== '' && !cut.startsWith(' ');
  }
  const entries = journalEntries(text);
  if (!lastIsWhole) entries.pop();
  const last = entries.length - 1;
  if (last >= 0 && !entries[last]!.endsWith('\n')) entries[last] += '\n';
  // Mask the whole text, not line by line: a private key block spans lines.
  const lines = mask(entries.reverse().join('')).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * journalctl (252) exits with status 1 when `--grep` matched no entry, printing nothing at all
 * under `--quiet`; a pattern it cannot compile also exits 1, but says so on standard error.
 * Only the silent case is "no matching lines".
 */
export function isNoMatch(command: JournalReadCommand, result: CommandResult): boolean {
  return command.grep !== undefined && result.exitCode === 1 && result.stdout === '' && result.stderr.trim() === '';
}

export interface LogsQueryOptions {
  runner: CommandRunner;
  timeoutMs?: number;
}

export function logsQueryImplementation({ runner, timeoutMs = LOGS_QUERY_TIMEOUT_MS }: LogsQueryOptions): CapabilityImplementation {
  return async (params, { signal }) => {
    const command = journalCommand(params);
    const result = await runner.run(command, { signal, timeoutMs });
    if (result.exitCode !== 0 && !result.truncated && !isNoMatch(command, result)) {
      throw commandFailure('reading the journal', result, true);
    }
    const observation: LogLines = {
      unit: command.unit,
      lines: maskedLines(result.stdout, result.truncated),
      truncated: result.truncated,
      masked: true,
    };
    const cut = result.truncated ? ', cut at the output cap' : '';
    return {
      observation,
      summary: `${observation.lines.length} masked journal lines of ${command.unit}${cut}`,
      lowTrust: true,
    };
  };
}

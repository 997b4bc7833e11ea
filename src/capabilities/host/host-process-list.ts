// host.process.list: the busiest processes, read from /proc/<pid>/stat and /proc/<pid>/status
// only. Command lines and environments are never opened: they hold arguments, tokens and
// passwords. A process that exits while it is being read is skipped.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonObject } from '../../core/plan.ts';
import { CapabilityError } from '../implementation.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { MAX_PROCESS_LIMIT } from '../catalogue/params.ts';
import { DEFAULT_PROC_ROOT, isGone, throwIfAborted } from './proc-files.ts';

export const DEFAULT_PROCESS_LIMIT = 20;
/**
 * Clock ticks per second of the utime/stime fields (USER_HZ). Node cannot ask sysconf, and
 * Linux reports 100 on every architecture it runs user space on.
 */
export const CLOCK_TICKS_PER_SECOND = 100;
const READ_BATCH = 64;

export interface ProcessStat {
  name: string;
  state: string;
  ppid: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
}

export interface ProcessStatus {
  uid: number | null;
  rssBytes: number;
}

export interface ProcessEntry extends JsonObject {
  pid: number;
  name: string;
  /** One-letter state: R running, S sleeping, D disk wait, Z zombie, T stopped, I idle, … */
  state: string;
  ppid: number;
  /** The real user id. */
  user: number | null;
  rss_bytes: number;
  /** CPU time used since the process started (user plus system), in seconds. */
  cpu_seconds: number;
}

export interface ProcessList extends JsonObject {
  processes: ProcessEntry[];
  /** How many processes were read in all, before sorting and the limit. */
  count: number;
}

/**
 * Parses /proc/<pid>/stat. The name is whatever lies between the first "(" and the last ")":
 * a process may name itself with spaces, parentheses or newlines, and no field after the name
 * can contain a ")". Null when the text is not a stat line.
 */
export function parseStat(text: string): ProcessStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // After the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime …
  if (fields.length < 13) return null;
  const state = fields[0]!;
  const ppid = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!/^[A-Za-z]$/.test(state) || ![ppid, utime, stime].every(Number.isSafeInteger)) return null;
  return { name: text.slice(open + 1, close), state, ppid, cpuTicks: utime + stime };
}

/** The real uid and resident set size from /proc/<pid>/status (kernel threads have no RSS). */
export function parseStatus(text: string): ProcessStatus {
  let uid: number | null = null;
  let rssBytes = 0;
  for (const line of text.split('\n')) {
    const uidLine = /^Uid:\s+(\d+)/.exec(line);
    if (uidLine) uid = Number(uidLine[1]);
    const rss = /^VmRSS:\s+(\d+)\s+kB/.exec(line);
    if (rss) rssBytes = Number(rss[1]) * 1024;
  }
  return { uid, rssBytes };
}

async function readProcess(procRoot: string, pid: number): Promise<ProcessEntry | null> {
  try {
    const [statText, statusText] = await Promise.all([readFile(join(procRoot, String(pid), 'stat'), 'utf8'), readFile(join(procRoot, String(pid), 'status'), 'utf8')]);
    const stat = parseStat(statText);
    if (stat === null) return null;
    const status = parseStatus(statusText);
    return {
      pid,
      name: stat.name,
      state: stat.state,
      ppid: stat.ppid,
      user: status.uid,
      rss_bytes: status.rssBytes,
      cpu_seconds: Math.round((stat.cpuTicks / CLOCK_TICKS_PER_SECOND) * 100) / 100,
    };
  } catch (error) {
    if (isGone(error)) return null;
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CapabilityError('reading_failed', `could not read process ${pid} (${code})`, true);
  }
}

export type ProcessSort = 'cpu' | 'memory';

export function topProcesses(entries: ProcessEntry[], sort: ProcessSort, limit: number): ProcessEntry[] {
  const key = sort === 'memory' ? (p: ProcessEntry) => p.rss_bytes : (p: ProcessEntry) => p.cpu_seconds;
  return [...entries].sort((a, b) => key(b) - key(a) || a.pid - b.pid).slice(0, limit);
}

export interface ProcessListOptions {
  procRoot?: string;
}

export async function readProcesses(procRoot: string, signal?: AbortSignal): Promise<ProcessEntry[]> {
  let names: string[];
  try {
    names = await readdir(procRoot);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new CapabilityError('reading_failed', `could not list ${procRoot} (${code})`, true);
  }
  const pids = names.filter((name) => /^[1-9]\d*$/.test(name)).map(Number);
  const entries: ProcessEntry[] = [];
  for (let i = 0; i < pids.length; i += READ_BATCH) {
    throwIfAborted(signal);
    const batch = await Promise.all(pids.slice(i, i + READ_BATCH).map((pid) => readProcess(procRoot, pid)));
    for (const entry of batch) if (entry !== null) entries.push(entry);
  }
  return entries;
}

export function hostProcessListImplementation({ procRoot = DEFAULT_PROC_ROOT }: ProcessListOptions = {}): CapabilityImplementation {
  return async (params, { signal }) => {
    const sort = params.sort ?? 'cpu';
    if (sort !== 'cpu' && sort !== 'memory') throw new CapabilityError('invalid_params', 'sort must be "cpu" or "memory"', false);
    const limit = params.limit ?? DEFAULT_PROCESS_LIMIT;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PROCESS_LIMIT) {
      throw new CapabilityError('invalid_params', `limit must be an integer from 1 to ${MAX_PROCESS_LIMIT}`, false);
    }
    const all = await readProcesses(procRoot, signal);
    const observation: ProcessList = { processes: topProcesses(all, sort, limit), count: all.length };
    return { observation, summary: `top ${observation.processes.length} of ${all.length} processes by ${sort}` };
  };
}

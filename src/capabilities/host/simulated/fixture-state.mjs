// State shared by the simulated `systemctl` and `journalctl` programs. Plain JavaScript so the
// fixture programs run on bare Node, without the TypeScript loader.
//
// Layout of the state directory (PRAXIS_SIM_HOST_DIR):
//   units/<unit>.json        the unit's state and how it behaves on restart (its
//                            success_action, triggers and dependencies too), or { alias_of }
//                            for an alias
//   journal/<unit>.jsonl     journal entries of the unit, one JSON object a line
//   clock                    optional ISO time the programs treat as "now"
//   behaviour/<program>.json optional misbehaviour: sleep, flood, print_env, forced failure
//   calls.log                every invocation, one JSON line: {program, argv}
//   next-pid                 the next main PID a (re)started unit gets

import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const USAGE_EXIT = 64;

export function fail(program, message, code = USAGE_EXIT) {
  process.stderr.write(`simulated ${program}: ${message}\n`);
  process.exit(code);
}

export function stateDir(program) {
  const dir = process.env.PRAXIS_SIM_HOST_DIR;
  if (!dir || !dir.startsWith('/') || !existsSync(dir)) fail(program, 'PRAXIS_SIM_HOST_DIR does not name an existing state directory');
  return dir;
}

// A deliberately plain check, independent of Praxis's own: enough to keep paths inside the
// state directory and to make a malformed argument fail loudly.
const UNIT = /^[A-Za-z0-9:_.\\@-]{1,255}$/;

export function checkUnit(program, unit) {
  if (!UNIT.test(unit) || unit.startsWith('-') || unit.startsWith('.') || unit.includes('..')) {
    fail(program, `malformed unit name ${JSON.stringify(unit)}`);
  }
  return unit;
}

export function recordCall(dir, program, argv) {
  appendFileSync(join(dir, 'calls.log'), `${JSON.stringify({ program, argv })}\n`);
}

export function now(dir) {
  const file = join(dir, 'clock');
  if (!existsSync(file)) return new Date();
  const at = new Date(readFileSync(file, 'utf8').trim());
  if (Number.isNaN(at.getTime())) fail('host', 'the clock file does not hold an ISO time', 70);
  return at;
}

function readJson(file, fallback) {
  if (!existsSync(file)) return fallback;
  return JSON.parse(readFileSync(file, 'utf8'));
}

export function readBehaviour(dir, program) {
  return readJson(join(dir, 'behaviour', `${program}.json`), {});
}

export function readUnit(dir, unit) {
  return readJson(join(dir, 'units', `${unit}.json`), undefined);
}

/**
 * The unit systemd would act on for `unit`, and its stored state: an alias (a unit file whose JSON
 * is `{ "alias_of": "<unit>" }`, like a symlink in /etc/systemd/system) stands for the unit it
 * names, which is also the Id systemctl show prints.
 */
export function resolveUnit(dir, unit) {
  const stored = readUnit(dir, unit);
  if (stored?.alias_of) return { id: checkUnit('systemctl', stored.alias_of), stored: readUnit(dir, stored.alias_of) };
  return { id: unit, stored };
}

export function writeUnit(dir, unit, state) {
  mkdirSync(join(dir, 'units'), { recursive: true });
  writeFileSync(join(dir, 'units', `${unit}.json`), `${JSON.stringify(state, null, 2)}\n`);
}

export function readJournal(dir, unit) {
  const file = join(dir, 'journal', `${unit}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

export function appendJournal(dir, unit, entries) {
  mkdirSync(join(dir, 'journal'), { recursive: true });
  appendFileSync(join(dir, 'journal', `${unit}.jsonl`), entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

export function nextPid(dir) {
  const file = join(dir, 'next-pid');
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 4000;
  writeFileSync(file, String(pid + 1));
  return pid;
}

/**
 * The unit's state as seen at `at`: a restart in progress is `activating` until its delay has
 * passed, then becomes the outcome it was scripted to have.
 */
export function currentState(unit, at) {
  if (!unit) return { load_state: 'not-found', active_state: 'inactive', sub_state: 'dead', main_pid: 0, since: null };
  const base = {
    load_state: unit.load_state ?? 'loaded',
    active_state: unit.active_state ?? 'inactive',
    sub_state: unit.sub_state ?? 'dead',
    main_pid: unit.main_pid ?? 0,
    since: unit.since ?? null,
  };
  const pending = unit.pending;
  if (!pending) return base;
  if (at.getTime() < Date.parse(pending.ready_at)) {
    return { ...base, active_state: 'activating', sub_state: 'start', main_pid: pending.pid, since: pending.requested_at };
  }
  if (pending.outcome === 'failed') {
    return { ...base, active_state: 'failed', sub_state: 'failed', main_pid: 0, since: pending.ready_at };
  }
  return { ...base, active_state: 'active', sub_state: 'running', main_pid: pending.pid, since: pending.ready_at };
}

/** Runs the scripted misbehaviour of a program, if any, before it does its real work. */
export async function misbehave(dir, program) {
  const behaviour = readBehaviour(dir, program);
  writeFileSync(join(dir, `${program}.pid`), String(process.pid));
  if (behaviour.print_env) process.stdout.write(`ENV=${JSON.stringify(process.env)}\n`);
  if (behaviour.sleep_seconds) await new Promise((resolve) => setTimeout(resolve, behaviour.sleep_seconds * 1000));
  if (behaviour.flood_bytes) await flood(behaviour.flood_bytes, process.stdout);
  if (behaviour.stderr_flood_bytes) await flood(behaviour.stderr_flood_bytes, process.stderr);
  if (behaviour.exit_code !== undefined) {
    if (behaviour.stderr) process.stderr.write(`${behaviour.stderr}\n`);
    process.exit(behaviour.exit_code);
  }
}

async function flood(bytes, stream) {
  const line = `${'2026-12-02T11:00:00+00:00 simhost flood[1]: '.padEnd(120, 'x')}\n`;
  let written = 0;
  while (written < bytes) {
    const chunk = line.repeat(512);
    written += chunk.length;
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
  }
}

/** `Wed 2026-12-02 11:00:00 UTC`, the way systemctl prints a timestamp under TZ=UTC. */
export function systemdTimestamp(iso) {
  if (!iso) return '';
  const at = new Date(iso);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][at.getUTCDay()];
  return `${day} ${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

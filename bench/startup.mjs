// Start-up figures of the built `praxis` command (run `npm run build` first; `npm run
// bench:startup` does): medians of several runs of `praxis --help`, `praxis validate` of a
// 30-step plan, the time from launching `praxis serve` to its first 200 from /readyz, and the
// resident memory of an idle `serve`. Each figure is compared with its target; the exit status
// is 1 when a median misses one.
//
//   node bench/startup.mjs [--runs N]     (default 11 runs per figure)

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'praxis.js');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 11;
if (!Number.isInteger(RUNS) || RUNS < 1) {
  process.stderr.write('bench/startup: --runs takes a positive whole number\n');
  process.exit(2);
}
const IDLE_MS = 3_000;

const dir = mkdtempSync(join(tmpdir(), 'praxis-startup-'));
// SQLite in the temporary folder, whatever the caller's environment names.
const env = { ...process.env, PRAXIS_DATABASE_URL: '', PRAXIS_DB: join(dir, 'praxis.db'), PRAXIS_MODEL_BASE_URL: '', PRAXIS_MODEL: '' };

/** A valid plan of the largest size the validator accepts: thirty read-only steps in a chain. */
function thirtyStepPlan() {
  const steps = Array.from({ length: 30 }, (_, i) => ({
    key: `S${i + 1}`,
    title: `Read the state of worker-${i + 1}`,
    kind: 'capability',
    capability: 'service.status',
    params: { unit: `worker-${i + 1}.service` },
    ...(i > 0 ? { depends_on: [`S${i}`] } : {}),
  }));
  return {
    objective: 'Read the state of thirty worker units',
    strategy: 'direct',
    assumptions: [{ statement: 'the units exist', min_confidence: 0.5 }],
    completion_criteria: 'every unit state was read',
    abort_conditions: ['a read fails'],
    risk: 'none: every step only reads',
    budget: { invocations: 30, wall_seconds: 600 },
    steps,
  };
}

/** Runs `praxis <args>` to its exit; resolves with the wall time in milliseconds. */
function timed(args, expectCode = 0) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== expectCode) reject(new Error(`praxis ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function answersReady(url) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function residentMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kib / 1024;
}

/** Launches `praxis serve`, times it to its first ready answer, then measures it idle. */
async function serveOnce() {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let gone = null;
  exited.then((how) => (gone = how));
  try {
    const url = `http://127.0.0.1:${port}/readyz`;
    for (;;) {
      if (gone) throw new Error(`praxis serve exited (${JSON.stringify(gone)}) before it was ready: ${stderr}`);
      if (performance.now() - started > 30_000) throw new Error(`praxis serve was not ready within 30 s: ${stderr}`);
      if (await answersReady(url)) break;
      await sleep(5);
    }
    const readyMs = performance.now() - started;
    await sleep(IDLE_MS);
    return { readyMs, rssMiB: residentMiB(child.pid) };
  } finally {
    if (!gone) child.kill('SIGTERM');
    await exited;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  const plan = join(dir, 'thirty-steps.json');
  writeFileSync(plan, `${JSON.stringify(thirtyStepPlan(), null, 2)}\n`);

  // One warm-up of each, not counted: it fills the file system cache, and the first serve
  // creates and migrates the database the measured ones start on (as a restarted daemon does).
  await timed(['--help']);
  await timed(['validate', plan]);
  await serveOnce();

  const help = [];
  const validate = [];
  const ready = [];
  const rss = [];
  for (let i = 0; i < RUNS; i += 1) help.push(await timed(['--help']));
  for (let i = 0; i < RUNS; i += 1) validate.push(await timed(['validate', plan]));
  for (let i = 0; i < RUNS; i += 1) {
    const run = await serveOnce();
    ready.push(run.readyMs);
    rss.push(run.rssMiB);
  }

  const figures = [
    { what: 'praxis --help', unit: 'ms', values: help, target: 300 },
    { what: 'praxis validate (30-step plan)', unit: 'ms', values: validate, target: 400 },
    { what: 'praxis serve to /readyz 200', unit: 'ms', values: ready, target: 1_000 },
    { what: `praxis serve idle RSS (${IDLE_MS / 1000} s after ready)`, unit: 'MiB', values: rss, target: 120 },
  ];
  process.stdout.write(`praxis start-up, ${RUNS} runs each, Node ${process.version}\n`);
  let missed = 0;
  for (const f of figures) {
    const m = median(f.values);
    const ok = m <= f.target;
    if (!ok) missed += 1;
    const range = `${Math.min(...f.values).toFixed(0)}–${Math.max(...f.values).toFixed(0)}`;
    process.stdout.write(`  ${f.what.padEnd(42)} median ${m.toFixed(0).padStart(5)} ${f.unit.padEnd(3)} (range ${range}; target ≤ ${f.target}) ${ok ? 'ok' : 'OVER TARGET'}\n`);
  }
  return missed === 0 ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench/startup: ${error.message}\n`);
  process.exitCode = 3;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

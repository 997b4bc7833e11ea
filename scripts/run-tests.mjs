// Runs the test files under test/ (arguments narrow the run to files whose path contains one of
// them) and prints a compact report: one line per file as it finishes, the failures in full,
// the slowest files, and a closing totals line.
//
// Each file runs in a node process of its own (as `node --test` would run it), several at a time,
// slowest first. At least one more file runs at once than the machine has cores, and more when
// the running files leave cores idle: many files spend most of their time waiting rather than
// computing (on the demo's 20-second verify window, on npm installing the package, on a browser,
// on a stream's re-check), and with a fixed cores + 1 at once such files held the places and left
// a core idle for much of the run (258 s for 306 s of CPU on 2 cores). So each file counts for
// the share of a core it keeps busy, and another file starts whenever the running files' shares
// and its own add up to no more than the cores, up to PRAXIS_TEST_CONCURRENCY files at once
// (default: three per core; set it to cores + 1 or less for the fixed count). A file's share is
// its CPU seconds over its wall seconds in the last run, scaled by how many files ran beside it
// over the cores (a file that computes all the time, run three at once on two cores, used two
// thirds of a core and counts as one); a file with no figures yet counts as one. The figures are
// those of the last runs here (.cache/test-times.json, .cache/test-shares.json); a checkout that
// has not run them yet (a fresh clone, CI) takes scripts/test-times-seed.json: wall seconds and
// share per file measured on a 2-core machine, which only the order and the packing depend on.
// Slowest first, so that the long files do not start last and leave the cores idle at the end;
// the first file in that order that fits starts.
//
// The run's PostgreSQL databases are copies of one migrated template, and the runner drops each
// file's databases once the file has ended (scripts/test-postgres.mjs). Its SQLite stores are
// copies of one migrated file (PRAXIS_TEST_SQLITE_TEMPLATE): migrating a SQLite store costs
// some 80 ms of CPU and a few dozen synchronous commits (waits on the disk) for every suite that
// opens one; the store, mind and server tests took 3% less CPU with the copies.
//
// Before the tests, the run makes sure they have a PostgreSQL (scripts/test-postgres.mjs): the
// one at PRAXIS_TEST_PG_URL when it answers, otherwise a private server of its own, started for
// the run and removed after it (it says so).
//
// The tests run with a temporary directory of their own (TMPDIR), which must be empty when they
// end: a test that leaves a file or folder behind fails the run, and the leftovers are named.
// (It also keeps the tests apart from other runs on the same machine.)
//
// Each file's CPU seconds (its process's and those of the processes it started: the built CLI, a
// browser) are measured (scripts/test-cpu.mjs) and printed beside its time, and the totals line
// gives the run's CPU: on a shared machine wall times vary with the load, CPU seconds do not.
// `--cpu` also prints the CPU per folder of test/ and the costliest files, and every run keeps
// the figures per file in .cache/test-cpu.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildTests, files as allFiles } from './test-build.mjs';
import { providePostgres, runDatabases } from './test-postgres.mjs';
import { laneReport, prepare } from './test-prepare.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const REPORTER = fileURLToPath(new URL('test-reporter.mjs', import.meta.url));
const CPU = fileURLToPath(new URL('test-cpu.mjs', import.meta.url));
const TIMES = join(root, '.cache', 'test-times.json');
const CPU_TIMES = join(root, '.cache', 'test-cpu.json');
const SHARES = join(root, '.cache', 'test-shares.json');
const SEED = join(root, 'scripts', 'test-times-seed.json');
/** A file still running after this long is stopped and counted as failed. */
const FILE_TIMEOUT_MS = 10 * 60_000;

/**
 * What the last runs here say of each test file: `times` in milliseconds and `shares` of a
 * core, from .cache over the seed's `[wall seconds, share]`.
 */
function readFigures() {
  const read = (path) => {
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return {};
    }
  };
  const seed = Object.entries(read(SEED));
  return {
    times: { ...Object.fromEntries(seed.map(([file, [s]]) => [file, s * 1000])), ...read(TIMES) },
    shares: { ...Object.fromEntries(seed.map(([file, [, share]]) => [file, share])), ...read(SHARES) },
  };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

const args = process.argv.slice(2);
const cpuReport = args.includes('--cpu');
const filters = args.filter((a) => a !== '--cpu' && a !== '--prepare');
const files = allFiles(join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// The test files' processes run without V8's optimizing compiler (--no-opt; the interpreter
// and the baseline compiler remain). A test file runs for seconds and runs little of its code
// often: perf showed about a fifth of their CPU spent optimizing functions on V8's background
// threads, and the same files took 8 to 15% less CPU without it (what they run is the same).
// More node options come from PRAXIS_TEST_NODE_ARGS, after these (`--opt` undoes it; `--cpu-prof
// --cpu-prof-dir=/tmp/prof` shows where a file spends its time).
const NODE_ARGS = ['--no-opt', ...(process.env.PRAXIS_TEST_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const cores = availableParallelism();
const concurrency = Number(process.env.PRAXIS_TEST_CONCURRENCY) || cores * 3;
const work = mkdtempSync(join(tmpdir(), 'praxis-test-run-'));
const scratch = join(work, 'tmp');
mkdirSync(scratch);
const cpuFigures = join(work, 'cpu');
mkdirSync(cpuFigures);

// `--prepare` (npm test): the builds and checks of scripts/test-prepare.mjs start at once, beside
// the run's own preparation (its PostgreSQL, the test bundles, the template stores); the test
// files start when the builds have succeeded, and the checks run beside them. Each lane's line
// is printed as it ends; a failed check's output is printed with the failures, and fails the run.
const lanes = [];
const preparation = args.includes('--prepare')
  ? prepare((result) => {
      lanes.push(result);
      console.log(laneReport({ ...result, output: '' }));
    })
  : undefined;

// Interrupted (Ctrl-C): the test processes and the private PostgreSQL get the signal too;
// remove what the run made (a test build cut short is removed by the next run, and so are the
// databases of a run that is gone).
let compiled;
let databases;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    preparation?.stop();
    compiled?.remove();
    rmSync(work, { recursive: true, force: true });
    await databases?.dropAll().catch(() => {});
    process.exit(130);
  });
}

const started = Date.now();
const postgres = await providePostgres(work, (line) => console.log(line)).catch((error) => {
  preparation?.stop();
  rmSync(work, { recursive: true, force: true });
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
compiled = await buildTests(root);
// The PostgreSQL test stores are copies of one migrated database, dropped together at the end.
const { openStore } = await import(pathToFileURL(compiled.testFile('src/store/store.ts')).href);
databases = await runDatabases(postgres.url, openStore);
if (databases.reason) console.log(`no migrated template database (${databases.reason}): each PostgreSQL test store migrates its own`);
const sqliteTemplate = await migratedSqliteFile(join(work, 'sqlite-template', 'praxis.db'), openStore);

const builds = (await preparation?.built) ?? [];
if (builds.some((r) => !r.ok)) {
  preparation.stop();
  for (const r of builds.filter((b) => !b.ok)) console.log(`\n${laneReport(r)}`);
  console.log('\nthe tests did not run: a build they need failed');
  await databases.dropAll().catch(() => {});
  await postgres.stop();
  compiled.remove();
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

const { times: previous, shares } = readFigures();
// Unknown files first (they may be slow), then the slowest known ones.
const queue = [...files].sort((a, b) => (previous[b] ?? Infinity) - (previous[a] ?? Infinity));
/** The share of a core a file kept busy in the last run (1 when unknown). */
const shareOf = (file) => shares[file] ?? 1;
const env = {
  ...process.env,
  TMPDIR: scratch,
  PRAXIS_TEST_PG_URL: postgres.url,
  ...(databases.template ? { PRAXIS_TEST_PG_TEMPLATE: databases.template } : {}),
  PRAXIS_TEST_SQLITE_TEMPLATE: sqliteTemplate,
};
const results = [];
// Each file's PostgreSQL databases are dropped once it has ended, one file's at a time, while
// the next files run (scripts/test-postgres.mjs says why).
let drops = Promise.resolve();
let dropFailure;
let fileCount = 0;

function runFile(file, beside) {
  return new Promise((resolve) => {
    const begun = Date.now();
    const prefix = databases.filePrefix(fileCount);
    const cpuOut = join(cpuFigures, `${fileCount++}.json`);
    const child = spawn(process.execPath, [...NODE_ARGS, `--import=${CPU}`, `--test-reporter=${REPORTER}`, '--test-reporter-destination=stdout', compiled.testFile(file)], {
      cwd: root,
      env: { ...env, PRAXIS_TEST_PG_PREFIX: prefix, PRAXIS_TEST_CPU_OUT: cpuOut },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      drops = drops.then(() => databases.drop(prefix)).catch((error) => (dropFailure ??= error));
      const ms = Date.now() - begun;
      const cpu = readCpu(cpuOut);
      const result = { file, ms, cpu, share: shareFrom(cpu, ms, beside()), code, signal, counts: undefined, failures: [], output: '' };
      const other = [];
      for (const line of stdout.split('\n')) {
        let parsed;
        try {
          parsed = line.startsWith('{') ? JSON.parse(line) : undefined;
        } catch {
          parsed = undefined;
        }
        if (parsed?.counts) result.counts = parsed.counts;
        else if (parsed?.failure) result.failures.push({ ...parsed.failure, error: compiled.sourceMapped(parsed.failure.error) });
        else if (line.trim()) other.push(line);
      }
      result.output = compiled.sourceMapped([...other, stderr.trimEnd()].filter(Boolean).join('\n'));
      resolve(result);
    });
  });
}

/**
 * A SQLite store with every migration applied, closed, for the tests to copy. Closing the last
 * connection checkpoints the write-ahead log into the file and removes it, so the one file is
 * the whole database.
 */
async function migratedSqliteFile(path, openStore) {
  const store = await openStore({ kind: 'sqlite', path });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  if (existsSync(`${path}-wal`)) throw new Error(`the migrated SQLite template ${path} kept its write-ahead log after closing`);
  return path;
}

/** The CPU seconds a file's process wrote as it exited (scripts/test-cpu.mjs), or undefined when it could not. */
function readCpu(path) {
  try {
    const { self, children } = JSON.parse(readFileSync(path, 'utf8'));
    return self + children;
  } catch {
    return undefined;
  }
}

/**
 * The share of a core a file keeps busy: its CPU over its wall time, scaled by the files that ran
 * at once on average (`beside`, itself included) over the cores, when they were more: what it
 * used of the cores it had to share. The scaling counts every file beside it as computing, so a
 * file that mostly waits looks busier than it is, which only lets fewer files start beside it.
 */
function shareFrom(cpu, ms, beside) {
  if (cpu === undefined || !(ms > 0)) return undefined;
  return Math.min(1, ((cpu * 1000) / ms) * Math.max(1, beside / cores));
}

/** The runner's CPU seconds so far: its own, and its ended children's (the test files'). */
function runCpu() {
  const own = process.resourceUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (own.userCPUTime + own.systemCPUTime) / 1e6 + (Number(fields[13]) + Number(fields[14])) / 100;
}

/** A file failed if a test failed, or if the process did not end well (a crash, a timeout, an error outside any test). */
const failed = (r) => r.failures.length > 0 || r.code !== 0 || !r.counts;

function fileLine(r) {
  const c = r.counts;
  const what = !c
    ? `no report (${r.signal === 'SIGKILL' ? `stopped after ${seconds(FILE_TIMEOUT_MS)}` : `exit ${r.signal ?? r.code}`})`
    : c.failed > 0
      ? `${c.failed} of ${c.tests} failed`
      : `${c.tests} tests${c.skipped ? `, ${c.skipped} skipped` : ''}${r.code !== 0 ? `, exit ${r.code}` : ''}`;
  return `${failed(r) ? '✖' : '✔'} ${r.file}  ${what}  ${seconds(r.ms)}${r.cpu === undefined ? '' : ` (cpu ${r.cpu.toFixed(1)} s)`}`;
}

// Starts files while they fit (see the top), and again whenever one ends. `filesTimesMs` adds up
// the files running at each moment over the run's milliseconds, so a file's average company is
// its growth over the file's time.
let peak = 0;
let filesTimesMs = 0;
let counted = Date.now();
const running = new Set();
const count = () => {
  const now = Date.now();
  filesTimesMs += running.size * (now - counted);
  counted = now;
  return filesTimesMs;
};
const besideFrom = new Map();
/** How many files ran at once on average, this one included, since `file` started (called as it ends). */
function besideOf(file) {
  const [from, at] = besideFrom.get(file);
  const ms = Date.now() - at;
  return ms > 0 ? (count() - from) / ms : 1;
}
await new Promise((allDone) => {
  const load = () => [...running].reduce((sum, file) => sum + shareOf(file), 0);
  const startMore = () => {
    while (running.size < concurrency) {
      const index = queue.findIndex((file) => running.size <= cores || load() + shareOf(file) <= cores);
      if (index < 0) break;
      const [file] = queue.splice(index, 1);
      count();
      running.add(file);
      besideFrom.set(file, [count(), Date.now()]);
      peak = Math.max(peak, running.size);
      void runFile(file, () => besideOf(file)).then((result) => {
        count();
        running.delete(file);
        results.push(result);
        console.log(fileLine(result));
        startMore();
      });
    }
    if (running.size === 0 && queue.length === 0) allDone();
  };
  startMore();
});

const dropping = Date.now();
await drops;
await databases.dropAll().catch((error) => (dropFailure ??= error));
if (dropFailure) {
  console.log(`the run's PostgreSQL databases (${databases.prefix}*) could not all be dropped: ${dropFailure.message}`);
  process.exitCode = 1;
}
const dropped = Date.now() - dropping;
await postgres.stop();
compiled.remove();
const elapsed = Date.now() - started;
const checksWaited = Date.now();
await preparation?.checked;
const checksAfterTests = Date.now() - checksWaited;

// Slowest-first order for the next run: this run's times over the last known ones.
mkdirSync(join(root, '.cache'), { recursive: true });
writeFileSync(TIMES, `${JSON.stringify({ ...previous, ...Object.fromEntries(results.map((r) => [r.file, r.ms])) }, null, 1)}\n`);
const measured = results.filter((r) => r.cpu !== undefined);
const readCache = (path) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
};
const perFile = (path, value) => ({ ...readCache(path), ...Object.fromEntries(measured.map((r) => [r.file, Number(value(r).toFixed(2))])) });
writeFileSync(
  CPU_TIMES,
  `${JSON.stringify(
    perFile(CPU_TIMES, (r) => r.cpu),
    null,
    1,
  )}\n`,
);
writeFileSync(
  SHARES,
  `${JSON.stringify(
    perFile(SHARES, (r) => r.share ?? 1),
    null,
    1,
  )}\n`,
);
const runnerCpu = runCpu();

const broken = results.filter(failed).sort((a, b) => a.file.localeCompare(b.file));
const failedLanes = lanes.filter((r) => !r.ok);
if (broken.length > 0 || failedLanes.length > 0) {
  console.log('\nfailures:');
  for (const r of failedLanes) console.log(`\n── ${laneReport(r)}`);
  for (const r of broken) {
    console.log(`\n── ${r.file}`);
    for (const f of r.failures) {
      console.log(`✖ ${f.path.join(' › ')}`);
      console.log(f.error.replace(/^/gm, '    '));
    }
    // What the file printed outside the report: a crash's stack, an error between tests.
    if (r.output && (r.failures.length === 0 || r.code !== 1)) console.log(r.output);
  }
}

const leftovers = readdirSync(scratch).filter((name) => !/^tsx-\d+$/.test(name) && name !== 'node-compile-cache');
rmSync(work, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.log(`\nthe tests left ${leftovers.length} item(s) in their temporary directory: ${leftovers.sort().join(', ')}`);
}

const total = results.reduce(
  (sum, r) => ({
    tests: sum.tests + (r.counts?.tests ?? 0),
    passed: sum.passed + (r.counts?.passed ?? 0),
    failed: sum.failed + (r.counts?.failed ?? 0),
    skipped: sum.skipped + (r.counts?.skipped ?? 0),
  }),
  { tests: 0, passed: 0, failed: 0, skipped: 0 },
);
// A file that failed outside any test still fails the run, and counts as one failure.
const unreported = broken.filter((r) => r.failures.length === 0).length;
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 5);
if (cpuReport) {
  const areas = new Map();
  for (const r of measured) {
    const area = r.file.split('/').slice(0, 2).join('/');
    const a = areas.get(area) ?? { files: 0, cpu: 0 };
    areas.set(area, { files: a.files + 1, cpu: a.cpu + r.cpu });
  }
  console.log('\ncpu by folder:');
  for (const [area, a] of [...areas].sort((x, y) => y[1].cpu - x[1].cpu)) console.log(`  ${area.padEnd(22)} ${a.cpu.toFixed(1).padStart(6)} s  ${a.files} files`);
  console.log('costliest files:');
  for (const r of [...measured].sort((a, b) => b.cpu - a.cpu).slice(0, 15)) console.log(`  ${r.file.padEnd(44)} ${r.cpu.toFixed(1).padStart(6)} s`);
}
const fileCpu = measured.reduce((sum, r) => sum + r.cpu, 0);
console.log(`\nslowest: ${slowest.map((r) => `${r.file} ${seconds(r.ms)}`).join(', ')}`);
console.log(`${results.length} files, ${total.tests} tests in ${seconds(elapsed)} (up to ${peak} at a time; ${seconds(dropped)} of it dropping databases at the end)`);
console.log(
  `cpu: ${seconds(runnerCpu * 1000)} in all (${seconds(fileCpu * 1000)} in the test files' processes, the rest the runner's own${preparation ? ' with the builds and checks' : ''}), ${seconds((runnerCpu * 1000) / cores)} per core on ${cores}`,
);
if (preparation) {
  const waited = checksAfterTests > 50 ? `; the run waited ${seconds(checksAfterTests)} for them after the tests` : '';
  console.log(`builds and checks: ${lanes.length - failedLanes.length} of ${lanes.length} passed${failedLanes.length ? ` (failed: ${failedLanes.map((r) => r.name).join(', ')})` : ''}${waited}`);
}
console.log(`tests: ${total.passed} passed, ${total.failed + unreported} failed, ${total.skipped} skipped`);
process.exit(broken.length > 0 || leftovers.length > 0 || failedLanes.length > 0 ? 1 : (process.exitCode ?? 0));

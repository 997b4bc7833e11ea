// `npm run bench:anatomy`: where a read-only step's SQLite work and bytes go, for finding the
// next lever (it sets no target and writes no results). One run of the throughput workload
// (throughput.ts: BENCH_STEPS steps, default 20,000, in plans of four) on a fresh SQLite file,
// printing:
//
// - the wall time of each part of the executor's passes (ExecutorObserver.phase: starting plans,
//   acting, moving, settling...), in µs per step: where the JavaScript goes, SQLite included;
// - each SQL statement's time inside SQLite (better-sqlite3's run and all, binding included),
//   in µs per step, with its calls and rows, the costliest first: its text up to 110 characters;
// - the WAL pages the run wrote, per step, by the table or index each page belongs to, with how
//   many distinct pages that was and how often each was written again. Automatic checkpoints are
//   off for the run and the WAL starts empty, so the -wal file holds exactly the run's frames;
//   each frame's page number is mapped to its btree by the `dbstat` table.
//
// Timing every statement slows the run by a few per cent; the figures are for comparing
// statements with each other and across commits on one machine, never for a target.

import BetterSqlite3 from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { PassPhase } from '../src/execution/tick.ts';
import type { Store } from '../src/store/index.ts';
import { benchStore } from './stores.ts';
import { runDiamonds } from './throughput.ts';

// Whole plans of four, as runDiamonds writes them.
const STEPS = Math.ceil(Number(process.env.BENCH_STEPS ?? 20_000) / 4) * 4;
const SHOWN = 20;

interface Timed {
  calls: number;
  ns: bigint;
  rows: number;
}

/**
 * Times every statement run through better-sqlite3 while `on`: its Statement methods are
 * wrapped on their shared prototype, which the store's own statements use too.
 */
function timeStatements(): { start(): void; stop(): Map<string, Timed> } {
  const probe = new BetterSqlite3(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  const timed = new Map<string, Timed>();
  let on = false;
  for (const method of ['run', 'all', 'get']) {
    const original = prototype[method]!;
    prototype[method] = function (this: { source: string }, ...args: unknown[]) {
      if (!on) return original.apply(this, args);
      const started = process.hrtime.bigint();
      const result = original.apply(this, args);
      const ns = process.hrtime.bigint() - started;
      const key = this.source.replace(/\s+/g, ' ').slice(0, 110);
      const entry = timed.get(key) ?? { calls: 0, ns: 0n, rows: 0 };
      entry.calls += 1;
      entry.ns += ns;
      entry.rows += Array.isArray(result) ? result.length : ((result as { changes?: number } | undefined)?.changes ?? 0);
      timed.set(key, entry);
      return result;
    };
  }
  return {
    start: () => {
      timed.clear();
      on = true;
    },
    stop: () => {
      on = false;
      return timed;
    },
  };
}

/** The page number of every frame in a WAL file, in order (https://sqlite.org/fileformat.html#the_write_ahead_log). */
function walFrames(path: string): { pageSize: number; pages: number[] } {
  const wal = readFileSync(path);
  if (wal.length < 32) return { pageSize: 0, pages: [] };
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return { pageSize, pages };
}

async function walByBtree(store: Store, walPath: string, steps: number): Promise<void> {
  const { pageSize, pages } = walFrames(walPath);
  const owners = await sql<{ pageno: number; name: string }>`select pageno, name from dbstat`.execute(store.db);
  const owner = new Map(owners.rows.map((row) => [Number(row.pageno), row.name]));
  const frames = new Map<string, number>();
  const distinct = new Map<string, Set<number>>();
  for (const page of pages) {
    const name = owner.get(page) ?? '(free or new)';
    frames.set(name, (frames.get(name) ?? 0) + 1);
    if (!distinct.has(name)) distinct.set(name, new Set());
    distinct.get(name)!.add(page);
  }
  console.log(`\nWAL: ${pages.length} frames of ${pageSize} bytes, ${(pages.length / steps).toFixed(3)} pages and ${((pages.length * (pageSize + 24)) / steps).toFixed(0)} bytes per step`);
  console.table(
    [...frames]
      .sort((a, b) => b[1] - a[1])
      .slice(0, SHOWN)
      .map(([btree, n]) => ({ btree, pages_per_step: Number((n / steps).toFixed(3)), distinct_pages: distinct.get(btree)!.size, writes_per_page: Number((n / distinct.get(btree)!.size).toFixed(1)) })),
  );
}

function phaseTable(phases: Map<PassPhase, number>, steps: number): void {
  let total = 0;
  for (const seconds of phases.values()) total += seconds;
  console.log(`\nthe executor's passes: ${((total * 1e6) / steps).toFixed(1)} µs per step`);
  console.table([...phases].map(([phase, seconds]) => ({ phase, us_per_step: Number(((seconds * 1e6) / steps).toFixed(1)) })));
}

function statementTable(timed: Map<string, Timed>, steps: number): void {
  let total = 0n;
  for (const entry of timed.values()) total += entry.ns;
  console.log(`\ninside SQLite: ${(Number(total) / 1000 / steps).toFixed(1)} µs per step`);
  console.table(
    [...timed]
      .sort((a, b) => Number(b[1].ns - a[1].ns))
      .slice(0, SHOWN)
      .map(([statement, entry]) => ({ us_per_step: Number((Number(entry.ns) / 1000 / steps).toFixed(2)), calls: entry.calls, rows: entry.rows, statement })),
  );
}

const statements = timeStatements();
const phases = new Map<PassPhase, number>();
// The run's WAL is read whole at the end, so nothing may checkpoint it meanwhile.
const bench = await benchStore('sqlite', { backgroundCheckpoints: false });
try {
  if (bench.config.kind !== 'sqlite') throw new Error('the anatomy is of an SQLite store');
  const walPath = `${bench.config.path}-wal`;
  const run = await runDiamonds(bench.store, STEPS, {
    async before(store) {
      // The store has one connection; these pragmas hold for the run on it.
      await sql`pragma wal_autocheckpoint = 0`.execute(store.db);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.db);
      statements.start();
    },
    async after(store) {
      const timed = statements.stop();
      console.log(`SQLite, ${STEPS} read-only steps in plans of four (A, then B and C, then D)`);
      phaseTable(phases, STEPS);
      statementTable(timed, STEPS);
      await walByBtree(store, walPath, STEPS);
    },
    phase: (phase, seconds) => void phases.set(phase, (phases.get(phase) ?? 0) + seconds),
  });
  console.log(`\n${run.steps} steps in ${run.seconds.toFixed(2)} s (${Math.round(run.steps / run.seconds)} steps/s with every statement timed)`);
} finally {
  await bench.dispose();
}

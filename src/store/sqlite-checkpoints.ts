// SQLite checkpoints on a thread of their own, for a long-lived writer (the daemon).
//
// In WAL mode a commit appends its pages to the -wal file, and a checkpoint copies them back into
// the database file. By default SQLite checkpoints on the committing connection, right after a
// commit that leaves 1,000 pages or more in the WAL: with better-sqlite3 that is the thread that
// committed, so the executor stopped for the copy of some 4 MB and the two fsyncs that bracket
// it, every few hundred steps. Measured on the throughput workload (December 2026, SQLite, 20,000
// read-only steps, alternating runs): with no checkpoint at all the executor ran 14 % faster, so
// about a seventh of its time went to them.
//
// Here a worker thread with its own connection to the file runs PASSIVE checkpoints shortly
// after writes. A passive checkpoint takes no lock a writer waits on: it copies the frames
// committed when it began, while the writer goes on appending. The writer tells the worker it
// wrote through a shared counter (an atomic add and notify, well under a microsecond), so an idle
// daemon's worker sleeps on it and wakes for nothing; a burst of commits within CHECKPOINT_DELAY_MS
// is copied once, each hot page once.
//
// The writer keeps SQLite's own checkpoint as a backstop at BACKSTOP_PAGES: the WAL restarts
// from its beginning only when a checkpoint has copied all of it before the next write begins,
// which the writer's own checkpoint guarantees and a concurrent one, under a stream of commits,
// does not. Should the worker stop (it could not open the file, or threw), the writer takes the
// checkpoints back at SQLite's default and a warning says so. Durability is the same either way:
// a commit is durable once its WAL frames are synced (synchronous=FULL); the checkpoint only
// moves them.

import type { Database as SqliteDatabase } from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** SQLite's own default for wal_autocheckpoint, which the writer returns to without a worker. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/** The WAL size, in pages, at which the writer checkpoints itself even with a worker (about 40 MB of 4 KB pages). */
export const BACKSTOP_PAGES = 10_000;

/**
 * How long the worker waits after a write before it checkpoints. 20 ms against 50 and 200 on the
 * throughput workload: the longer waits let the WAL reach the backstop (42 MB at 200 ms), where
 * the writer checkpoints itself, and ran no faster.
 */
export const CHECKPOINT_DELAY_MS = 20;

/** Slots of the shared counter: writes the writer made, and a stop flag. */
const WRITES = 0;
const STOP = 1;

export interface BackgroundCheckpoints {
  /** Tells the worker the writer wrote (or committed); cheap enough to call on every write statement. */
  written(): void;
  /** Stops the worker and closes its connection; resolves once its thread has exited. */
  stop(): Promise<void>;
}

interface WorkerData {
  module: string;
  path: string;
  state: SharedArrayBuffer;
  delayMs: number;
  slots: { writes: number; stop: number };
}

/**
 * The worker's whole program, sent to it as source (`new Worker(code, { eval: true })`) so that
 * it runs the same from the sources, under a loader, and from the bundle. It refers to nothing
 * but its argument, and declares no function of its own: a loader that keeps function names
 * would wrap them in a helper the worker does not have.
 */
function checkpointLoop(load: (id: string) => unknown): void {
  const { workerData } = load('node:worker_threads') as { workerData: WorkerData };
  const Database = load(workerData.module) as typeof import('better-sqlite3');
  const database = new Database(workerData.path);
  try {
    database.pragma('busy_timeout = 5000');
    // A checkpoint syncs the WAL before copying and the database file after, as FULL asks.
    database.pragma('synchronous = FULL');
    const checkpoint = database.prepare('pragma wal_checkpoint(PASSIVE)');
    const state = new Int32Array(workerData.state);
    const { writes, stop } = workerData.slots;
    let seen = Atomics.load(state, writes);
    while (Atomics.load(state, stop) === 0) {
      if (Atomics.load(state, writes) === seen) {
        Atomics.wait(state, writes, seen);
        continue;
      }
      // Let the rest of a burst land, so that a page written by several commits is copied once.
      Atomics.wait(state, stop, 0, workerData.delayMs);
      seen = Atomics.load(state, writes);
      checkpoint.all();
    }
  } finally {
    database.close();
  }
}

/**
 * Starts checkpointing `database` (a file in WAL mode, at `path`) on a worker thread, and sets
 * the writer's own checkpoint to the backstop. Call `written()` after each write and `stop()`
 * before closing the writer.
 */
export function startBackgroundCheckpoints(database: SqliteDatabase, path: string): BackgroundCheckpoints {
  const state = new Int32Array(new SharedArrayBuffer(8));
  const data: WorkerData = {
    module: createRequire(import.meta.url).resolve('better-sqlite3'),
    path,
    state: state.buffer as SharedArrayBuffer,
    delayMs: CHECKPOINT_DELAY_MS,
    slots: { writes: WRITES, stop: STOP },
  };
  database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const worker = new Worker(`(${checkpointLoop.toString()})(require)`, { eval: true, workerData: data, name: 'praxis sqlite checkpoints' });
  // The thread never keeps the process alive; stop() is how it ends with the store.
  worker.unref();
  let stopping = false;
  let failure: string | undefined;
  worker.once('error', (error) => (failure = error.message));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      if (!stopping && database.open) {
        database.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
        process.emitWarning(`SQLite checkpoints in the background stopped (${failure ?? `exit code ${code}`}); the writer takes them again`, { code: 'PRAXIS_SQLITE_CHECKPOINTS' });
      }
      resolve();
    }),
  );
  return {
    written() {
      Atomics.add(state, WRITES, 1);
      Atomics.notify(state, WRITES, 1);
    },
    async stop() {
      stopping = true;
      // Held until the thread has exited, or the process could end while waiting for it.
      worker.ref();
      Atomics.store(state, STOP, 1);
      Atomics.notify(state, WRITES);
      Atomics.notify(state, STOP);
      await exited;
    },
  };
}

// The claim race with real separate processes, each with its own connection: exactly one may
// win. This is what lets several daemons share one database.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { seedReadyStep } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { programArgs } from '../support/programs.ts';

const RACER = new URL('../support/claim-racer.ts', import.meta.url);
const CONTENDERS = 8;
/** A fallback start line only: racers are normally released together once all are connected. */
const DEADLINE_MS = 45_000;

interface RaceResult {
  won: boolean;
  lateMs: number;
  released: 'go' | 'clock';
}

interface Racer {
  ready: Promise<void>;
  result: Promise<RaceResult>;
  go(): void;
}

function startRacer(configJson: string, stepId: string, startAt: number): Racer {
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(process.execPath, [...programArgs(RACER), configJson, stepId, String(startAt)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const result = new Promise<RaceResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`racer exited with ${code}: ${err}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as RaceResult);
      } catch {
        reject(new Error(`racer printed no result: ${out} ${err}`));
      }
    });
  });
  return {
    // A racer that dies before it is ready must fail the test, not hang it.
    ready: Promise.race([ready, result.then(() => undefined)]),
    result,
    go: () => child.stdin.end('go\n'),
  };
}

for (const kind of STORE_KINDS) {
  describe(`claim race between processes (${kind})`, () => {
    const current = useStore(kind);

    it(`gives a ready step to exactly one of ${CONTENDERS} processes`, async () => {
      const { store, config } = current();
      const { stepId } = await seedReadyStep(store);
      const racers = Array.from({ length: CONTENDERS }, () => startRacer(JSON.stringify(config), stepId, Date.now() + DEADLINE_MS));
      await Promise.all(racers.map((r) => r.ready));
      for (const racer of racers) racer.go();
      const results = await Promise.all(racers.map((r) => r.result));

      assert.deepEqual(
        results.map((r) => r.released),
        Array(CONTENDERS).fill('go'),
        'every racer was connected and waiting when the race started',
      );
      assert.equal(results.filter((r) => r.won).length, 1, `results: ${JSON.stringify(results)}`);
      const step = await store.steps.get(stepId);
      assert.equal(step?.status, 'executing');
      assert.equal(step?.attempts, 1);
    });
  });
}

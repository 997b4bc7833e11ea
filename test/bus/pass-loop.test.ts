// A consumer's passes (src/bus/follower.ts, PassLoop): a wake-up cuts the pause short, and one
// that comes during a pass starts the next pass at once. That one was dropped: an event that
// committed while the webhook notifier or the trace exporter was in a pass waited the whole pause.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassLoop } from '../../src/bus/follower.ts';

/** A promise and the function that resolves it. */
function signal(): { done: Promise<void>; fire(): void } {
  let fire: () => void = () => {};
  const done = new Promise<void>((resolve) => (fire = resolve));
  return { done, fire };
}

/** 'ran' when `done` settles first, 'paused' after `ms` (far shorter than the loop's pause, far longer than a pass). */
async function ranBefore(done: Promise<void>, ms: number): Promise<'ran' | 'paused'> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([done.then(() => 'ran' as const), new Promise<'paused'>((resolve) => (timer = setTimeout(() => resolve('paused'), ms)))]);
  clearTimeout(timer);
  return outcome;
}

const PAUSE_MS = 600_000;

describe('the pass loop', () => {
  it('starts the next pass at once after a wake-up that came during a pass', async () => {
    const inFirst = signal();
    const finishFirst = signal();
    const second = signal();
    let passes = 0;
    const loop = new PassLoop(
      async () => {
        passes += 1;
        if (passes === 1) {
          inFirst.fire();
          await finishFirst.done;
        } else if (passes === 2) second.fire();
      },
      { pauseMs: PAUSE_MS, onError: (error) => assert.fail(error) },
    );
    loop.start();
    try {
      await inFirst.done;
      // The event that wakes it commits after the pass read the log.
      loop.wake();
      finishFirst.fire();
      assert.equal(await ranBefore(second.done, 10_000), 'ran', 'the second pass came before the pause would have ended');
    } finally {
      await loop.stop();
    }
  });

  it('still cuts a pause short, and keeps the pause after a pass that threw', async () => {
    const failed = signal();
    const afterFailure = signal();
    const afterWake = signal();
    let passes = 0;
    const errors: Error[] = [];
    const loop: PassLoop = new PassLoop(
      async () => {
        passes += 1;
        if (passes === 1) {
          loop.wake();
          failed.fire();
          throw new Error('the store is down');
        }
        if (passes === 2) afterFailure.fire();
        if (passes === 3) afterWake.fire();
      },
      { pauseMs: PAUSE_MS, afterErrorMs: PAUSE_MS, onError: (error) => errors.push(error) },
    );
    loop.start();
    try {
      await failed.done;
      // A wake-up during a failing pass does not turn the wait after the error into a retry at once.
      assert.equal(await ranBefore(afterFailure.done, 300), 'paused');
      assert.equal(passes, 1);
      assert.equal(errors.length, 1);
      // A wake-up during the pause still ends it.
      loop.wake();
      assert.equal(await ranBefore(afterFailure.done, 10_000), 'ran');
      loop.wake();
      assert.equal(await ranBefore(afterWake.done, 10_000), 'ran');
    } finally {
      await loop.stop();
    }
  });
});

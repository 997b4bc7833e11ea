// PollTurns: each pass polls the steps after the last pass's, by id, and starts over from the
// oldest once it reaches the newest.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PollTurns, type ReadPolled } from '../../src/execution/poll-turns.ts';
import type { StepRecord } from '../../src/store/index.ts';

/** A read over steps with these ids, as the store answers it: ids after `after`, oldest first. */
function readOver(ids: string[]): ReadPolled & { calls: (string | null)[] } {
  const calls: (string | null)[] = [];
  const read = async (after: string | null, limit: number) => {
    calls.push(after);
    return [...ids]
      .sort()
      .filter((id) => after === null || id > after)
      .slice(0, limit)
      .map((id) => ({ id }) as StepRecord);
  };
  return Object.assign(read, { calls });
}

const turn = async (turns: PollTurns, read: ReadPolled, limit: number) => (await turns.next(read, limit)).map((s) => s.id);

describe('PollTurns', () => {
  it('polls every step in turn, starting over from the oldest after the newest', async () => {
    const turns = new PollTurns();
    const read = readOver(['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(await turn(turns, read, 2), ['a', 'b']);
    assert.deepEqual(await turn(turns, read, 2), ['c', 'd']);
    assert.deepEqual(await turn(turns, read, 2), ['e', 'a'], 'past the newest, the oldest again in the same turn');
    assert.deepEqual(await turn(turns, read, 2), ['b', 'c']);
  });

  it('polls each step once in a turn when there are fewer than the room', async () => {
    const turns = new PollTurns();
    const read = readOver(['a', 'b', 'c']);
    assert.deepEqual(await turn(turns, read, 2), ['a', 'b']);
    assert.deepEqual(await turn(turns, read, 5), ['c', 'a', 'b'], 'no step twice');
    assert.deepEqual(await turn(turns, read, 5), ['a', 'b', 'c'], 'a short turn has seen them all: the next starts from the oldest');
    assert.equal(read.calls.at(-1), null, 'with one read');
  });

  it('goes on from where it was when the step it stopped at has been answered', async () => {
    const turns = new PollTurns();
    const ids = ['a', 'b', 'c', 'd'];
    const read = readOver(ids);
    assert.deepEqual(await turn(turns, read, 2), ['a', 'b']);
    ids.splice(ids.indexOf('b'), 1);
    assert.deepEqual(await turn(turns, read, 2), ['c', 'd']);
  });
});

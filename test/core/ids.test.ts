// Ids are UUID version 7: time-ordered, so a primary key's order follows creation order, also for
// ids made within one millisecond (a pass names hundreds of rows at once).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isId, newId } from '../../src/core/ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ids', () => {
  it('are version 7 UUIDs, unique, in creation order even within one millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => newId());
    const after = Date.now();
    assert.ok(ids.every((id) => V7.test(id) && isId(id)));
    assert.equal(new Set(ids).size, ids.length);
    for (let i = 1; i < ids.length; i += 1) assert.ok(ids[i - 1]! < ids[i]!, `id ${i} sorts after id ${i - 1}`);
    // The first 48 bits are the time in milliseconds.
    const msecs = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(msecs(ids[0]!) >= before && msecs(ids.at(-1)!) <= after + 1);
  });

  it('tells an id from anything else', () => {
    assert.equal(isId('not-an-id'), false);
    assert.equal(isId(42), false);
    // Upper case is refused, not matched: PostgreSQL compares uuids whatever their case and
    // SQLite compares text, so it would find a record on one store only.
    assert.equal(isId(newId().toUpperCase()), false);
  });
});

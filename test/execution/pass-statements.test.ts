// On PostgreSQL the store sends every fixed-shape statement as a named prepared statement, planned
// once per connection (src/store/pg-statements.ts); a text that binds a list (`in ($1, $2)`) looks
// like one shape per batch size and goes unnamed, parsed and planned on every call. The store
// passes ids as one array (`any($1::uuid[])`), so a bound list in a pass's statements is a fixed
// vocabulary (statuses) bound by mistake: the due read of answered steps, promotions, closed
// plans' waits and the plans' and intentions' conditional moves all were, until December 2026.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useStore } from '../support/stores.ts';
import { draftOf, observedWorld, readStep } from './support.ts';

const BOUND_LIST = /\bin \(\$\d+, \$/;
const BARE_LIMIT = /\blimit \?/;

describe('the statements of a pass (postgres)', () => {
  const current = useStore('postgres');

  it('bind no list, so each is prepared once: starting, acting, moving, promoting, settling and closing plans', async () => {
    const { w, observed, statements } = await observedWorld(current());
    try {
      const diamond = () =>
        draftOf([
          readStep('A'),
          readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] }),
          readStep('C', 'test.read', { name: 'c' }, { depends_on: ['A'] }),
          readStep('D', 'test.read', { name: 'd' }, { depends_on: ['B', 'C'] }),
        ]);
      const plans = [];
      for (let i = 0; i < 3; i += 1) plans.push((await w.plan(diamond())).plan);
      statements.length = 0;
      const executor = w.executor();
      for (let pass = 0; pass < 10; pass += 1) await executor.tick();
      for (const plan of plans) assert.equal((await observed.plans.get(plan.id))?.status, 'completed');
      assert.ok(
        statements.some((text) => /^update "plan_steps" set "status" = \$1/.test(text)),
        'the passes promoted steps',
      );
      assert.deepEqual(
        statements.filter((text) => BOUND_LIST.test(text)),
        [],
      );
    } finally {
      await observed.close();
    }
  });
});

describe('the statements of a pass (sqlite)', () => {
  const current = useStore('sqlite');

  it('bind no bare LIMIT, so SQLite keeps each prepared: a daemon with a host, its housekeeping included', async () => {
    const { w, observed, statements } = await observedWorld(current());
    try {
      const plans = [];
      for (let i = 0; i < 3; i += 1) plans.push((await w.plan(draftOf([readStep('A'), readStep('B', 'test.read', { name: 'b' }, { depends_on: ['A'] })]))).plan);
      statements.length = 0;
      const executor = w.executor({ host: 'host-a', batch: 2 });
      for (let pass = 0; pass < 10; pass += 1) await executor.tick();
      for (const plan of plans) assert.equal((await observed.plans.get(plan.id))?.status, 'completed');
      const limited = statements.filter((text) => /\blimit\b/.test(text));
      assert.ok(
        limited.some((text) => text.includes('limit +?')),
        'the passes read with bound limits',
      );
      assert.deepEqual(
        limited.filter((text) => BARE_LIMIT.test(text)),
        [],
      );
    } finally {
      await observed.close();
    }
  });
});

// The wake channel of a store in a schema (src/store/wake-listener.ts, wakeChannel). A schema name
// may be 63 characters long, but `praxis_wake_` and a name over 51 made a channel pg_notify
// refused: every waking event written to such a store failed with "channel name too long".

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { PostgresStoreConfig } from '../../src/store/config.ts';
import { openStore } from '../../src/store/store.ts';
import { listenForWakeUps, wakeChannel } from '../../src/store/wake-listener.ts';
import { useStore } from '../support/stores.ts';

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the wake channel', () => {
  it('is the one it always was for a store without a schema or with a name that fits', () => {
    assert.equal(wakeChannel(), 'praxis_wake');
    assert.equal(wakeChannel('tenant_a'), 'praxis_wake_tenant_a');
    const longest = 'a'.repeat(51);
    assert.equal(wakeChannel(longest), `praxis_wake_${longest}`);
  });

  it('fits PostgreSQL for every schema name, and keeps long names that begin alike apart', () => {
    const one = `${'s'.repeat(60)}_01`;
    const two = `${'s'.repeat(60)}_02`;
    for (const schema of ['b'.repeat(52), one, two]) {
      assert.ok(wakeChannel(schema).length <= 63, wakeChannel(schema));
      assert.ok(wakeChannel(schema).startsWith('praxis_wake_'));
    }
    assert.notEqual(wakeChannel(one), wakeChannel(two));
    assert.equal(wakeChannel(one), wakeChannel(one), 'the same for every daemon');
  });

  describe('on PostgreSQL', () => {
    const current = useStore('postgres', { migrate: false });

    it('carries a waking event of a store whose schema name is 63 characters long', async () => {
      const base = current().config as PostgresStoreConfig;
      const config: PostgresStoreConfig = { ...base, schema: `praxis_${'x'.repeat(44)}_${newId().replace(/-/g, '').slice(-11)}` };
      assert.equal(config.schema!.length, 63);
      const store = await openStore(config);
      const heard: string[] = [];
      const listener = listenForWakeUps(config, { onWake: (reason) => heard.push(reason) });
      try {
        await store.migrate();
        await until(() => listener.listening, 'the listener to listen');
        await store.events.append({ type: 'grant_created', data: {} });
        await until(() => heard.includes('grant_created'), 'the wake-up to reach the listener');
      } finally {
        await listener.close();
        await store.close();
      }
    });
  });
});

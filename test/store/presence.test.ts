// Executors' presence (src/store/presence.ts) on a real PostgreSQL: a lock held on a connection of
// its own, seen by any other store on the same database, let go when its holder releases it, is
// killed or loses its connection, and taken again after a dropped connection. SQLite keeps none.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/store.ts';
import { PRESENCE_CONNECTION, PRESENCE_NAMESPACE, presenceKey } from '../../src/store/presence.ts';
import { programArgs } from '../support/programs.ts';
import { useStore } from '../support/stores.ts';
import { until } from '../support/until.ts';

describe('executor presence (postgres)', () => {
  const current = useStore('postgres');

  it('is held on a connection of its own, seen from another store on the database, and let go on release', async () => {
    const { store, config } = current();
    const hold = store.presence.hold('web-2:4242:a1b2c3d4');
    const other = await openStore(config);
    try {
      await hold.whenHeld();
      assert.equal(hold.held, true);
      assert.deepEqual(await other.presence.absent(['web-2:4242:a1b2c3d4', 'web-3:77:0badc0de']), ['web-3:77:0badc0de']);
      const { rows } = await sql<{ application_name: string }>`
        select a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.classid::int8 = ${PRESENCE_NAMESPACE} and l.objid::int8 = ${presenceKey('public', 'web-2:4242:a1b2c3d4')}`.execute(store.db);
      assert.deepEqual(
        rows.map((row) => row.application_name),
        [PRESENCE_CONNECTION],
      );
      await hold.release();
      assert.equal(hold.held, false);
      assert.deepEqual(await other.presence.absent(['web-2:4242:a1b2c3d4']), ['web-2:4242:a1b2c3d4']);
      assert.deepEqual(await other.presence.absent([]), []);
    } finally {
      await hold.release();
      await other.close();
    }
  });

  it('is let go the moment its process is killed', async () => {
    const { store, config } = current();
    const name = 'web-4:4242:feedface';
    const child = spawn(process.execPath, [...programArgs(new URL('./processes/presence-holder.ts', import.meta.url)), JSON.stringify(config), name], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => String(chunk).includes('held') && resolve());
        child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
      });
      assert.deepEqual(await store.presence.absent([name]), []);
      child.kill('SIGKILL');
      await until(async () => (await store.presence.absent([name])).length === 1, 'the lock to be let go');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is held by one holder of a name at a time, and passes to a waiting one when let go', async () => {
    const { store } = current();
    const first = store.presence.hold('web-5:1:00c0ffee');
    await first.whenHeld();
    const errors: string[] = [];
    const second = store.presence.hold('web-5:1:00c0ffee', { onError: (error) => errors.push(error.message) });
    try {
      await until(async () => errors.length > 0, 'the second holder to find the key taken');
      assert.equal(second.held, false);
      assert.match(errors[0]!, /held by another session/);
      await first.release();
      await second.whenHeld();
      assert.equal(second.held, true);
    } finally {
      await first.release();
      await second.release();
    }
  });

  it('is taken again after its connection is dropped, telling its holder both times', async () => {
    const { store } = current();
    const name = 'web-6:4242:0ddba11a';
    const told: string[] = [];
    const hold = store.presence.hold(name, { onHeld: () => told.push('held'), onLost: () => told.push('lost') });
    try {
      await hold.whenHeld();
      const holder = async () => {
        const { rows } = await sql<{ pid: number }>`
          select pid from pg_locks where locktype = 'advisory' and granted and classid::int8 = ${PRESENCE_NAMESPACE} and objid::int8 = ${presenceKey('public', name)}`.execute(store.db);
        return rows[0]?.pid;
      };
      const before = (await holder())!;
      await sql`select pg_terminate_backend(${before})`.execute(store.db);
      await until(async () => told.length === 3, 'held, lost and held again');
      assert.deepEqual(told, ['held', 'lost', 'held']);
      assert.equal(hold.held, true);
      const after = await holder();
      assert.ok(after !== undefined && after !== before, 'held by a new session');
    } finally {
      await hold.release();
    }
  });

  it('keys a name by the schema the server resolves, however the store names it', async () => {
    const { store, config } = current();
    const spelt = await openStore({ ...config, schema: 'public' } as typeof config);
    const hold = store.presence.hold('web-7:4242:a1b2c3d4');
    try {
      await hold.whenHeld();
      assert.deepEqual(await spelt.presence.absent(['web-7:4242:a1b2c3d4']), [], 'the default search path and `public` are one store');
    } finally {
      await hold.release();
      await spelt.close();
    }
  });

  it("refuses to make a key while the store's schema does not exist, rather than one of no schema", async () => {
    const { config } = current();
    const nowhere = await openStore({ ...config, schema: 'no_such_schema' } as typeof config);
    try {
      await assert.rejects(nowhere.presence.absent(['web-9:4242:a1b2c3d4']), /schema does not exist/);
    } finally {
      await nowhere.close();
    }
  });

  it('lets every hold go when its store closes', async () => {
    const { store, config } = current();
    const other = await openStore(config);
    const hold = other.presence.hold('web-8:4242:a1b2c3d4');
    await hold.whenHeld();
    await other.close();
    assert.equal(hold.held, false);
    assert.deepEqual(await store.presence.absent(['web-8:4242:a1b2c3d4']), ['web-8:4242:a1b2c3d4']);
  });

  it('leaves no connection behind when released while still taking the lock', async () => {
    const { config } = current();
    const store = await openStore(config);
    try {
      // Released at every moment of the attempt: before the schema is read, while it is, while connecting.
      for (const delay of [0, 0, 1, 2, 3, 5, 8, 13, 21]) {
        const hold = store.presence.hold(`web-10:4242:${String(delay).padStart(8, '0')}`);
        await new Promise((resolve) => setTimeout(resolve, delay));
        await hold.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ${PRESENCE_CONNECTION}`.execute(store.db);
      assert.equal(rows[0]?.n, 0);
    } finally {
      await store.close();
    }
  });

  it('keys a name apart in each schema, so stores sharing a database stay apart', () => {
    assert.notEqual(presenceKey('tenant_a', 'web-1:1:a1b2c3d4'), presenceKey('tenant_b', 'web-1:1:a1b2c3d4'));
    assert.equal(presenceKey('public', 'web-1:1:a1b2c3d4'), presenceKey('public', 'web-1:1:a1b2c3d4'));
    for (const name of ['a', 'web-1:1:a1b2c3d4', 'x'.repeat(300)]) {
      const key = presenceKey('s', name);
      assert.ok(Number.isInteger(key) && key >= 0 && key < 2 ** 31, `${key} is a non-negative int4`);
    }
  });
});

describe('executor presence (sqlite)', () => {
  const current = useStore('sqlite');

  it('is not kept: every hold is held at once and nobody is known to be absent', async () => {
    const { store } = current();
    assert.equal(store.presence.kept, false);
    const hold = store.presence.hold('web-2:4242:a1b2c3d4');
    assert.equal(hold.held, true);
    await hold.whenHeld();
    assert.deepEqual(await store.presence.absent(['web-2:4242:a1b2c3d4', 'gone:1:00000000']), []);
    await hold.release();
  });
});

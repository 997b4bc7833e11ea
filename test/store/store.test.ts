import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { InputError } from '../../src/core/errors.ts';
import { codecFor } from '../../src/store/codec.ts';
import { DEFAULT_SQLITE_PATH, redact, resolveStoreConfig } from '../../src/store/config.ts';
import { describeStore } from '../../src/daemon/store-notice.ts';
import { openStore } from '../../src/store/store.ts';
import { openTestStore } from '../support/stores.ts';

describe('resolveStoreConfig', () => {
  const url = 'postgres://praxis@db.example:5432/praxis';

  it('prefers --db over the environment, then PRAXIS_DATABASE_URL over PRAXIS_DB', () => {
    const env = { PRAXIS_DATABASE_URL: url, PRAXIS_DB: '/var/lib/praxis/env.db' };
    assert.deepEqual(resolveStoreConfig({ db: './flag.db' }, env), { kind: 'sqlite', path: './flag.db' });
    assert.deepEqual(resolveStoreConfig({}, env), { kind: 'postgres', url });
    assert.deepEqual(resolveStoreConfig({}, { PRAXIS_DB: '/var/lib/praxis/env.db' }), {
      kind: 'sqlite',
      path: '/var/lib/praxis/env.db',
    });
    assert.deepEqual(resolveStoreConfig({}, {}), { kind: 'sqlite', path: DEFAULT_SQLITE_PATH });
    assert.deepEqual(resolveStoreConfig({}, { PRAXIS_DATABASE_URL: '', PRAXIS_DB: '' }), {
      kind: 'sqlite',
      path: DEFAULT_SQLITE_PATH,
    });
  });

  it('reads a postgres:// or postgresql:// --db value as PostgreSQL', () => {
    assert.deepEqual(resolveStoreConfig({ db: url }, { PRAXIS_DB: 'x.db' }), { kind: 'postgres', url });
    const alt = 'postgresql://praxis@db.example/praxis';
    assert.deepEqual(resolveStoreConfig({ db: alt }, {}), { kind: 'postgres', url: alt });
  });

  it('takes praxis_prepared_statements out of a PostgreSQL URL (for a pooler that cannot keep prepared statements)', () => {
    assert.deepEqual(resolveStoreConfig({ db: `${url}?sslmode=require&praxis_prepared_statements=off` }, {}), {
      kind: 'postgres',
      url: `${url}?sslmode=require`,
      namedStatements: false,
    });
    assert.deepEqual(resolveStoreConfig({}, { PRAXIS_DATABASE_URL: `${url}?praxis_prepared_statements=on` }), { kind: 'postgres', url, namedStatements: true });
  });

  it('refuses unclear input with a typed error naming its source', () => {
    const refused = (flags: { db?: string }, env: Record<string, string>, path: string, message: RegExp) =>
      assert.throws(
        () => resolveStoreConfig(flags, env),
        (error: unknown) => error instanceof InputError && error.problems[0]?.path === path && error.problems[0]?.code === 'invalid_store_config' && message.test(error.message),
      );
    refused({ db: '' }, {}, '--db', /not empty/);
    refused({ db: '   ' }, {}, '--db', /not empty/);
    refused({ db: 'mysql://x/y' }, {}, '--db', /unsupported database URL scheme/);
    refused({}, { PRAXIS_DATABASE_URL: '/tmp/file.db' }, 'PRAXIS_DATABASE_URL', /postgres:\/\//);
    refused({ db: 'postgres://user:secret@/' }, {}, '--db', /not a valid PostgreSQL URL/);
    refused({}, { PRAXIS_DATABASE_URL: `${url}?praxis_prepared_statements=no` }, 'PRAXIS_DATABASE_URL', /praxis_prepared_statements must be on or off, not "no"/);
    // No message ever shows a password: in user information (even one holding an @), in a
    // query parameter, or in a URL whose scheme is a typo.
    for (const db of [
      'postgres://user:secret@/',
      'postgress://root:secret@db/x',
      'mysql://root:s@cret@db/x',
      'postgress://u@h/d?password=secret',
      'postgres://u:se/cret@h/db',
      'postgres://u:se?cret@h/db',
      'mysql://u:se#cret@h/db',
    ]) {
      assert.throws(
        () => resolveStoreConfig({ db }, {}),
        (e: Error) => e instanceof InputError && !/secret|cret/.test(e.message),
        db,
      );
    }
  });

  it('describes a PostgreSQL store without its passwords', () => {
    assert.equal(redact('postgres://root:hun@ter2@db.example/x?sslmode=require&password=hunter2'), 'postgres://root:***@db.example/x?sslmode=require&password=***');
    assert.equal(redact('postgres://app@db/x?sslpassword=k3y&application_name=praxis'), 'postgres://app@db/x?sslpassword=***&application_name=praxis');
    assert.equal(describeStore({ kind: 'postgres', url: 'postgres://u@h/d?password=s3cret' }), 'PostgreSQL postgres://u@h/d?password=***');
  });
});

describe('openStore (sqlite)', () => {
  it('makes a new store readable by its owner only, whatever the umask, and leaves an existing one as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-mode-'));
    const previous = process.umask(0o022);
    try {
      const path = join(dir, '.praxis', 'praxis.db');
      const mode = (p: string) => statSync(p).mode & 0o777;
      const store = await openStore({ kind: 'sqlite', path });
      try {
        await store.migrate();
        assert.equal(mode(`${path}-wal`), 0o600, 'SQLite gives its WAL the database file mode');
      } finally {
        await store.close();
      }
      assert.equal(mode(join(dir, '.praxis')), 0o700);
      assert.equal(mode(path), 0o600);
      assert.equal(mode(`${path}-migrating`), 0o600, 'the migration lock beside it too');
      const shared = join(dir, 'shared.db');
      writeFileSync(shared, '');
      chmodSync(shared, 0o640);
      await (await openStore({ kind: 'sqlite', path: shared })).close();
      assert.equal(mode(shared), 0o640, "an existing file keeps its owner's mode");
    } finally {
      process.umask(previous);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates the parent directory and sets WAL, busy_timeout and foreign keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-open-'));
    const path = join(dir, 'nested', 'deeper', 'praxis.db');
    const store = await openStore({ kind: 'sqlite', path });
    try {
      assert.ok(existsSync(join(dir, 'nested', 'deeper')));
      const pragma = async (name: string) => Object.values((await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(store.db)).rows[0] ?? {})[0];
      assert.equal(String(await pragma('journal_mode')).toLowerCase(), 'wal');
      assert.equal(Number(await pragma('busy_timeout')), 5000);
      assert.equal(Number(await pragma('foreign_keys')), 1);
      await store.migrate();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('openStore (postgres)', () => {
  it('refuses a schema name that is not a plain identifier', async () => {
    await assert.rejects(openStore({ kind: 'postgres', url: 'postgres://127.0.0.1/x', schema: 'a;drop' }), (error: unknown) => error instanceof InputError && error.problems[0]?.path === 'schema');
  });

  it('fails loudly, not silently, when PostgreSQL is unreachable', async () => {
    const saved = process.env.PRAXIS_TEST_PG_URL;
    process.env.PRAXIS_TEST_PG_URL = 'postgres://postgres@127.0.0.1:1/postgres';
    try {
      await assert.rejects(openTestStore('postgres'), /PostgreSQL tests cannot run: no server at/);
    } finally {
      if (saved === undefined) delete process.env.PRAXIS_TEST_PG_URL;
      else process.env.PRAXIS_TEST_PG_URL = saved;
    }
  });
});

describe('codec', () => {
  for (const kind of ['sqlite', 'postgres'] as const) {
    const codec = codecFor(kind);
    it(`${kind}: writes values its driver can bind and reads them back normalised`, () => {
      const at = new Date('2026-05-06T07:08:09.010Z');
      assert.equal(codec.time(at), '2026-05-06T07:08:09.010Z');
      assert.deepEqual(codec.readTime(codec.time(at)), at);
      assert.deepEqual(codec.readTime(at), at);
      assert.equal(codec.readTimeOrNull(null), null);
      assert.equal(typeof codec.json([1, 2]), 'string', 'arrays are stringified, never handed to pg as arrays');
      assert.equal(codec.jsonOrNull(undefined), null);
      assert.throws(() => codec.json(undefined), /cannot store/);
      assert.equal(codec.readBool(codec.bool(true)), true);
      assert.equal(codec.readBool(codec.bool(false)), false);
      assert.equal(codec.readInt('42'), 42);
      assert.equal(codec.readInt(42n), 42);
    });
  }

  it('writes JSON deterministically: keys sorted at every depth, array order kept', () => {
    for (const kind of ['sqlite', 'postgres'] as const) {
      const codec = codecFor(kind);
      const a = { b: 1, a: { d: [3, 1, { z: true, y: null }], c: 'x' } };
      const b = { a: { c: 'x', d: [3, 1, { y: null, z: true }] }, b: 1 };
      assert.equal(codec.json(a), '{"a":{"c":"x","d":[3,1,{"y":null,"z":true}]},"b":1}');
      assert.equal(codec.json(a), codec.json(b));
      assert.equal(codec.json({ at: new Date('2026-01-01T00:00:00.000Z') }), '{"at":"2026-01-01T00:00:00.000Z"}');
      const tricky = JSON.parse('{"__proto__":{"x":1},"constructor":2}') as unknown;
      assert.deepEqual(JSON.parse(codec.json(tricky)), tricky, 'a __proto__ key stays an ordinary key');
      assert.equal(codec.json({ skip: undefined, keep: 1 }), '{"keep":1}');
    }
  });

  it('keeps a stored JSON string a string on PostgreSQL', () => {
    assert.equal(codecFor('postgres').readJson('hello'), 'hello');
    assert.equal(codecFor('sqlite').readJson('"hello"'), 'hello');
    assert.deepEqual(codecFor('sqlite').readTextArray('["a","b"]'), ['a', 'b']);
    assert.deepEqual(codecFor('postgres').readTextArray(['a', 'b']), ['a', 'b']);
    assert.equal(codecFor('sqlite').bool(true), 1);
    assert.equal(codecFor('postgres').bool(true), true);
  });
});

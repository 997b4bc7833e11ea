// SQLite statements kept prepared and their rows made by a function of their columns
// (src/store/sqlite-dialect.ts): the rows must be what better-sqlite3 itself would return (but
// for a column named __proto__, which better-sqlite3 drops and these keep).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { shapedRows, withStatementCache } from '../../src/store/sqlite-dialect.ts';
import { useStore } from '../support/stores.ts';

describe('SQLite rows made by shape', () => {
  const dir = mkdtempSync(join(tmpdir(), 'praxis-sqlite-rows-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const open = (name: string) => {
    const database = new BetterSqlite3(join(dir, name));
    database.exec(`create table t (id integer primary key, name text, data blob, score real);
      create table u (id integer primary key, t_id integer, name text);
      insert into t values (1, 'one', x'0102', 1.5), (2, null, null, null);
      insert into u values (10, 1, 'u-one'), (20, 2, 'u-two');`);
    return database;
  };

  it('returns the same rows as better-sqlite3, values and types, a repeated column name taking the last value', () => {
    const database = open('same.db');
    for (const text of [
      'select * from t order by id',
      'select t.*, u.* from t join u on u.t_id = t.id order by t.id',
      'select count(*) as n, max(score) as top from t',
      'select * from t where id = ?',
      // An empty name, names that look like numbers (an object puts those first), names needing quotes.
      `select 1 as "", 2 as "10", 3 as "2", 4 as "a ""quoted"" name", 5 as "line
break"`,
    ]) {
      const params = text.includes('?') ? [2] : [];
      const expected = database.prepare(text).all(...params) as Record<string, unknown>[];
      const shaped = shapedRows(database.prepare(text));
      const all = shaped.all(...params) as Record<string, unknown>[];
      assert.deepEqual(all, expected, text);
      assert.deepEqual([...shaped.iterate(...params)], expected, text);
      assert.deepEqual(
        all.map((row) => Object.keys(row)),
        expected.map((row) => Object.keys(row)),
        `${text}: keys in the same order`,
      );
    }
    const joined = shapedRows(database.prepare('select t.*, u.* from t join u on u.t_id = t.id order by t.id')).all() as Record<string, unknown>[];
    assert.equal(joined[0]!.id, 10, 'the later id column wins');
    assert.deepEqual(Object.keys(joined[0]!), ['id', 'name', 'data', 'score', 't_id']);
    assert.ok(Buffer.isBuffer((shapedRows(database.prepare('select data from t where id = 1')).all() as { data: unknown }[])[0]!.data));
    database.close();
  });

  it('writes through a statement that returns nothing, and reads rows a write returns', () => {
    const database = open('writes.db');
    const insert = shapedRows(database.prepare('insert into u (t_id, name) values (?, ?)'));
    assert.equal(insert.reader, false);
    assert.equal(insert.run(1, 'u-three').changes, 1);
    const returning = shapedRows(database.prepare('update u set name = ? where id = ? returning id, name'));
    assert.deepEqual(returning.all('renamed', 10), [{ id: 10, name: 'renamed' }]);
    database.close();
  });

  it('a column named __proto__ is a property, not the prototype', () => {
    const database = open('proto.db');
    const [row] = shapedRows(database.prepare(`select 1 as "__proto__", 2 as other`)).all() as Record<string, unknown>[];
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.entries(row!), [
      ['__proto__', 1],
      ['other', 2],
    ]);
    database.close();
  });

  it('a kept statement reads the new columns after another connection changed the table', () => {
    const database = open('migrated.db');
    const cached = withStatementCache(database) as { prepare(sql: string): ReturnType<typeof shapedRows>; close(): void };
    const read = () => cached.prepare('select * from t where id = 1').all() as Record<string, unknown>[];
    assert.deepEqual(Object.keys(read()[0]!), ['id', 'name', 'data', 'score']);
    const other = new BetterSqlite3(join(dir, 'migrated.db'));
    other.exec(`alter table t add column added text default 'new'`);
    other.close();
    assert.deepEqual(read()[0], { id: 1, name: 'one', data: Buffer.from([1, 2]), score: 1.5, added: 'new' });
    cached.close();
  });
});

describe('SQLite bound limits', () => {
  const current = useStore('sqlite');

  it('are written so that SQLite keeps the statement prepared, and cut each run at its own value', async () => {
    const { store } = current();
    for (const name of ['a', 'b', 'c']) await store.minds.create({ name: `limits-${name}` });
    const names = (limit: number) => store.db.selectFrom('minds').select('name').where('name', 'like', 'limits-%').orderBy('name').limit(limit);
    assert.match(names(2).compile().sql, /limit \+\?$/);
    // One text, so one kept statement, run with each value in turn.
    for (const limit of [3, 0, 1, 2, 5]) {
      assert.deepEqual(
        (await names(limit).execute()).map((row) => row.name),
        ['limits-a', 'limits-b', 'limits-c'].slice(0, limit),
        `limit ${limit}`,
      );
    }
    // A limit that is not a whole number is refused, as a bare `limit ?` refused it.
    await assert.rejects(names(2.5).execute(), /datatype mismatch/);
    // A limit written into the text stays a literal, which the planner may read.
    assert.match(store.db.selectFrom('minds').select('name').limit(sql.lit(2)).compile().sql, /limit 2$/);
  });
});

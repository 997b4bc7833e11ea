// Queries compiled once and run with new values (src/store/query-template.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { QueryTemplate } from '../../src/store/query-template.ts';
import { compileOnlyPostgres } from '../support/compile-only.ts';

// Compiles for PostgreSQL without a server: a template only ever compiles.
const db = compileOnlyPostgres();

describe('query templates', () => {
  it('puts each call’s values where the query used them, a value used twice in both places, constants kept', () => {
    let built = 0;
    const kinds: string[] = [];
    const template = new QueryTemplate<readonly [string, string], unknown>((on, [mindId, name], kind) => {
      built += 1;
      kinds.push(kind);
      return on.selectFrom('minds').selectAll().where('id', '=', mindId).where('name', '=', name).where('status', '=', 'active').where('host', '=', mindId);
    });
    const first = template.compile(db, 'postgres', ['m-1', 'alpha']);
    const second = template.compile(db, 'postgres', ['m-2', 'beta']);
    assert.equal(built, 1, 'built once');
    assert.deepEqual(kinds, ['postgres'], 'told the store kind it builds for');
    assert.equal(second.sql, first.sql);
    assert.equal(first.sql, 'select * from "minds" where "id" = $1 and "name" = $2 and "status" = $3 and "host" = $4');
    assert.deepEqual(first.parameters, ['m-1', 'alpha', 'active', 'm-1']);
    assert.deepEqual(second.parameters, ['m-2', 'beta', 'active', 'm-2']);
  });

  it('refuses a query that changes, splices or leaves out a value it was given, and a call with another number of values', () => {
    const changed = new QueryTemplate<readonly [string], unknown>((on, [id]) => on.selectFrom('minds').selectAll().where('id', '=', `${id}-suffix`));
    assert.throws(() => changed.compile(db, 'postgres', ['m-1']), /changed a value/);
    const spliced = new QueryTemplate<readonly [string], unknown>((on, [id]) => on.selectFrom('minds').selectAll().where('id', '=', sql.lit(id)));
    assert.throws(() => spliced.compile(db, 'postgres', ['m-1']), /spliced a value/);
    const leftOut = new QueryTemplate<readonly [string, string], unknown>((on, [id]) => on.selectFrom('minds').selectAll().where('id', '=', id));
    assert.throws(() => leftOut.compile(db, 'postgres', ['m-1', 'm-2']), /left out value 1/);
    const fixed = new QueryTemplate<readonly string[], unknown>((on, [id]) => on.selectFrom('minds').selectAll().where('id', '=', id!));
    fixed.compile(db, 'postgres', ['m-1']);
    assert.throws(() => fixed.compile(db, 'postgres', ['m-1', 'm-2']), /compiled for 1 values was given 2/);
  });
});

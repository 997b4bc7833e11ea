// Bearer tokens for the daemon's surfaces (HTTP API, console, MCP). Only a hash of each token is
// kept: a copy of the database never lets anyone act as an operator. Forward-only.

import { sql, type Kysely, type Migration } from 'kysely';
import { ACCESS_ROLES } from '../../core/vocabulary.ts';
import type { StoreKind } from '../codec.ts';
import { oneOf } from '../vocabulary-sql.ts';
import { columnTypesFor } from './column-types.ts';

export function accessTokens(kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      const t = columnTypesFor(kind);
      await db.schema
        .createTable('access_tokens')
        .addColumn('id', t.id, (c) => c.primaryKey())
        // The name recorded on every decision made with this token.
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        // An agent token speaks for exactly one mind; other roles see every mind.
        .addColumn('mind_id', t.id, (c) => c.references('minds.id'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', t.time, (c) => c.notNull().defaultTo(t.now))
        .addColumn('expires_at', t.time)
        .addColumn('revoked_at', t.time)
        .addCheckConstraint('access_tokens_role_check', oneOf('role', ACCESS_ROLES))
        .addCheckConstraint('access_tokens_agent_mind_check', sql`role <> 'agent' or mind_id is not null`)
        .execute();
    },
  };
}

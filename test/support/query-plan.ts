// A query's plan as the store would run it, as text to match an index name against. On
// PostgreSQL sequential scans are forbidden on the connection that explains: a test's tables are
// small, so the planner would rightly scan them, and the question is whether an index can serve.

import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { StoreKind } from '../../src/store/index.ts';

export async function queryPlan(db: Kysely<any>, kind: StoreKind, compiled: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  const rows = await db.connection().execute(async (conn) => {
    if (kind === 'postgres') await sql`set enable_seqscan = off`.execute(conn);
    try {
      const prefix = kind === 'sqlite' ? 'explain query plan ' : 'explain ';
      return (await conn.executeQuery(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]))).rows;
    } finally {
      if (kind === 'postgres') await sql`reset enable_seqscan`.execute(conn);
    }
  });
  return JSON.stringify(rows);
}

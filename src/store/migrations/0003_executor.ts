// What the executor needs beyond 0001 and 0002: a partial index over the plans a tick revisits
// (validated ones waiting to start, executing ones, and replans left half-way), so starting and
// settling plans costs what the live plans cost however many closed plans pile up behind them.
// Forward-only, like every migration.

import type { Kysely, Migration } from 'kysely';
import type { StoreKind } from '../codec.ts';
import { LIVE_PLAN_STATUSES } from '../repositories/executor-queries.ts';
import { oneOf } from '../vocabulary-sql.ts';

export function executorIndexes(_kind: StoreKind): Migration {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('plans_live_idx').on('plans').columns(['status', 'updated_at']).where(oneOf('status', LIVE_PLAN_STATUSES)).execute();
    },
  };
}

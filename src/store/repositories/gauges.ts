// Counts behind the daemon's gauges, read at scrape time. Each one follows the live work, not
// the history: steps are counted only in plans the executor still revisits (found through
// plans_live_idx, whose predicate the join repeats), approvals through
// approval_requests_status_idx, and open capability requests are few by construction (each
// mind has a cap).

import type { StepKind, StepStatus } from '../../core/vocabulary.ts';
import type { RepositoryContext } from './context.ts';
import { planIsLive } from './executor-queries.ts';

export interface StepCount {
  status: StepStatus;
  kind: StepKind;
  count: number;
}

export class GaugeRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /** Steps of live plans (validated, executing, waiting, awaiting_approval, replanning) by status and kind; absent pairs are zero. */
  async stepsOfLivePlans(): Promise<StepCount[]> {
    const rows = await this.#ctx.db
      .selectFrom('plans as p')
      .innerJoin('plan_steps as s', 's.plan_id', 'p.id')
      .select(['s.status', 's.kind', (eb) => eb.fn.countAll().as('n')])
      .where(planIsLive(this.#ctx.codec.kind, 'p.status'))
      .groupBy(['s.status', 's.kind'])
      .execute();
    return rows.map((row) => ({ status: row.status as StepStatus, kind: row.kind as StepKind, count: asCount(row.n) }));
  }

  async approvalsPending(): Promise<number> {
    const row = await this.#ctx.db
      .selectFrom('approval_requests')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return asCount(row.n);
  }

  async capabilityRequestsOpen(): Promise<number> {
    const row = await this.#ctx.db
      .selectFrom('capability_requests')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'open')
      .executeTakeFirstOrThrow();
    return asCount(row.n);
  }
}

/** pg returns count(*) as a string (bigint); SQLite as a number. */
function asCount(value: unknown): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`a count is not a whole number: ${String(value)}`);
  return n;
}

// Policy rules: the operator's standing answer (allow, ask, deny) for a capability on targets
// matching a pattern, per mind. One rule per (mind, capability, pattern); setting it again replaces it.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { PolicyDecision } from '../../core/vocabulary.ts';
import type { PolicyRulesTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';
import type { Codec } from '../codec.ts';

export interface PolicyRuleRecord {
  id: string;
  mindId: string;
  capability: string;
  targetPattern: string;
  decision: PolicyDecision;
  /** How many operators must approve when the decision is `ask`: 1, or 2 for four eyes. */
  approvers: number;
  /** When the rule was first set; replacing it keeps the id and this time. */
  createdAt: Date;
}

export interface PolicyRuleInput {
  mindId: string;
  capability: string;
  targetPattern: string;
  decision: PolicyDecision;
  approvers: number;
}

export class PolicyRuleRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Creates the rule, or replaces the decision and approvers of the one already set for the
   * same mind, capability and pattern: one statement, so two operators setting it at once
   * leave one rule (the last writer's), never a duplicate or an error.
   */
  async set(input: PolicyRuleInput): Promise<PolicyRuleRecord> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('policy_rules')
      .values({
        id: newId(),
        mind_id: input.mindId,
        capability: input.capability,
        target_pattern: input.targetPattern,
        decision: input.decision,
        approvers: input.approvers,
        created_at: codec.time(clock.now()),
      })
      .onConflict((oc) =>
        oc.columns(['mind_id', 'capability', 'target_pattern']).doUpdateSet((eb) => ({
          decision: eb.ref('excluded.decision'),
          approvers: eb.ref('excluded.approvers'),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  /** True when a rule was removed, false when there was none. */
  async remove(mindId: string, capability: string, targetPattern: string): Promise<boolean> {
    const rows = await this.#ctx.db.deleteFrom('policy_rules').where('mind_id', '=', mindId).where('capability', '=', capability).where('target_pattern', '=', targetPattern).returning('id').execute();
    return rows.length > 0;
  }

  /** Ordered by capability, then target pattern. */
  async listByMind(mindId: string): Promise<PolicyRuleRecord[]> {
    const rows = await rulesOfMind(this.#ctx.db, mindId).execute();
    return rows.map((row) => this.#decode(row));
  }

  #decode(row: Selectable<PolicyRulesTable>): PolicyRuleRecord {
    return decodePolicyRule(row, this.#ctx.codec);
  }
}

/** A row of `policy_rules` as its record. */
export function decodePolicyRule(row: Selectable<PolicyRulesTable>, codec: Codec): PolicyRuleRecord {
  return {
    id: row.id,
    mindId: row.mind_id,
    capability: row.capability,
    targetPattern: row.target_pattern,
    decision: row.decision,
    approvers: codec.readInt(row.approvers),
    createdAt: codec.readTime(row.created_at),
  };
}

/** A mind's rules, in the order policy reads them (by capability, then target pattern). */
export function rulesOfMind(db: RepositoryContext['db'], mindId: string) {
  return db.selectFrom('policy_rules').selectAll().where('mind_id', '=', mindId).orderBy('capability').orderBy('target_pattern');
}

// Statements and commits per step, counted rather than estimated: every statement the store
// runs passes through its query observer, and on PostgreSQL the server's own count of committed
// transactions (pg_stat_database.xact_commit) is read before and after.
//
// A commit is a `commit` statement or a write outside any transaction (SQLite and PostgreSQL
// both commit those on their own): each is a durable write to the log. The executor runs with
// one worker, so the statements arrive in order and a depth counter tells which are inside a
// transaction. (PostgreSQL's own count, pg_stat_database.xact_commit, was tried and left out:
// backends report it lazily, up to seconds later, and it counts every read as a transaction.)
// The per-pass housekeeping update that expires approvals counts as a commit in the plan's
// figure although it writes nothing when nothing expires; it cancels out of the per-step one.

import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import type { PlanDraft, StepDraft } from '../src/core/plan.ts';
import { benchStep } from './throughput.ts';
import { Executor } from '../src/execution/executor.ts';
import { validate } from '../src/planning/validate.ts';
import type { StoreKind } from '../src/store/index.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { benchStore } from './stores.ts';

/** Plans run together for the figure per step in a batch. */
const BATCH_PLANS = 50;

export interface Counts {
  statements: number;
  commits: number;
}

class QueryCounter {
  statements = 0;
  commits = 0;
  #depth = 0;
  observe = (sql: string): void => {
    const head = sql.trimStart().slice(0, 16).toLowerCase();
    if (head.startsWith('begin')) this.#depth += 1;
    else if (head.startsWith('commit')) {
      this.#depth = Math.max(0, this.#depth - 1);
      this.commits += 1;
    } else if (head.startsWith('rollback')) this.#depth = Math.max(0, this.#depth - 1);
    else {
      this.statements += 1;
      if (this.#depth === 0 && !head.startsWith('select')) this.commits += 1;
    }
  };
  snapshot(): Counts {
    return { statements: this.statements, commits: this.commits };
  }
}

/**
 * What running one plan costs, from the executor's first look at it to the plan closing: a plan
 * of one step, a plan of `wide` independent steps (run side by side, sharing their pass's
 * commit) and a chain of `wide` steps (one per pass). The cost of a step is the difference to the
 * plan of one step divided by the extra steps.
 */
export async function costPerStep(kind: StoreKind, capability: 'bench.read' | 'bench.write', wide = 5) {
  const counter = new QueryCounter();
  const bench = await benchStore(kind, { observeQuery: counter.observe });
  try {
    const { store } = bench;
    const mind = await store.minds.create({ name: `cost-${newId()}` });
    await store.policyRules.set({ mindId: mind.id, capability, targetPattern: '*', decision: 'allow', approvers: 1 });
    const service = new CapabilityService(store, benchRegistry, benchImplementations);
    const executor = new Executor({ store, capabilities: service, concurrency: 1, batch: 100 });

    /** Runs `copies` plans of `steps` to completion; what they cost together. */
    const run = async (steps: StepDraft[], copies = 1): Promise<Counts> => {
      const draft: PlanDraft = { objective: 'cost', strategy: 'operator', assumptions: [], completion_criteria: '', abort_conditions: [], risk: '', estimate: {}, budget: {}, alternatives: [], steps };
      const validation = validate(draft, benchRegistry);
      if (!validation.valid) throw new Error(`cost plan is invalid: ${JSON.stringify(validation.errors)}`);
      const plans: string[] = [];
      for (let i = 0; i < copies; i += 1) {
        const intention = await store.intentions.create({ mindId: mind.id, objective: 'cost', origin: 'operator' });
        plans.push((await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft, validation, status: 'validated' })).id);
      }
      // Only the plans under test are live, so every statement counted is spent on them.
      const started = counter.snapshot();
      await executor.drain();
      const after = counter.snapshot();
      for (const id of plans) {
        const closed = await store.plans.get(id);
        if (closed?.status !== 'completed') throw new Error(`cost plan ended ${closed?.status}: ${closed?.statusReason}`);
      }
      return { statements: after.statements - started.statements, commits: after.commits - started.commits };
    };
    // The executor's first pass also sweeps every plan for settling (and its statements would be
    // charged to the first plan measured): a plan run first, and not counted, takes that pass.
    await run([benchStep('W', capability)]);
    const one = await run([benchStep('A', capability)]);
    const many = await run(Array.from({ length: wide }, (_, i) => benchStep(`S${i}`, capability)));
    // A chain runs one step per pass, so nothing is shared between steps: each pays for its own
    // move and for settling its plan after it (promoting the next step).
    const chain = await run(Array.from({ length: wide }, (_, i) => benchStep(`L${i}`, capability, i === 0 ? [] : [`L${i - 1}`])));
    // A batch as a busy daemon sees it: BATCH_PLANS plans of four steps (A, then B and C side by
    // side, then D) run together, everything they cost (starting, moving, settling, closing, and
    // each pass's housekeeping) shared out over their steps.
    const diamond = [benchStep('A', capability), benchStep('B', capability, ['A']), benchStep('C', capability, ['A']), benchStep('D', capability, ['B', 'C'])];
    const batch = await run(diamond, BATCH_PLANS);
    const per = (of: Counts, key: keyof Counts) => Math.round(((of[key] - one[key]) / (wide - 1)) * 100) / 100;
    const shared = (key: keyof Counts) => Math.round((batch[key] / (BATCH_PLANS * diamond.length)) * 100) / 100;
    return {
      plan_of_one_step: one,
      side_by_side: many,
      chain,
      per_step: { statements: per(many, 'statements'), commits: per(many, 'commits') },
      per_step_in_a_chain: { statements: per(chain, 'statements'), commits: per(chain, 'commits') },
      per_step_in_a_batch: { statements: shared('statements'), commits: shared('commits') },
    };
  } finally {
    await bench.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const kind of ['sqlite', 'postgres'] as const) {
    for (const capability of ['bench.read', 'bench.write'] as const) {
      console.log(kind, capability, JSON.stringify(await costPerStep(kind, capability)));
    }
  }
}

// Statements and commits per step, counted rather than estimated: every statement the store
// runs passes through its query observer, and on PostgreSQL the server's own count of committed
// transactions (pg_stat_database.xact_commit) is read before and after.
//
// A commit is a `commit` statement or a write outside any transaction (SQLite and PostgreSQL
// both commit those on their own): each is a durable write to the log. The executor runs with
// one worker, so the statements arrive in order and a depth counter tells which are inside a
// transaction. On PostgreSQL the server's committed-transaction count (pg_stat_database
// .xact_commit) is read too; it also counts every read outside a transaction.

import pg from 'pg';
import { CapabilityService } from '../src/capabilities/service.ts';
import { newId } from '../src/core/ids.ts';
import type { PlanDraft, StepDraft } from '../src/core/plan.ts';
import { Executor } from '../src/execution/index.ts';
import { validate } from '../src/planning/validate.ts';
import type { StoreKind } from '../src/store/index.ts';
import { benchImplementations, benchRegistry } from './capabilities.ts';
import { benchStore } from './stores.ts';

export interface Counts {
  statements: number;
  commits: number;
  /** PostgreSQL only: committed transactions of the database as the server counts them, reads included. */
  xactCommits?: number;
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

async function xactCommits(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Backends report their counts when idle, at most about once a second.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const { rows } = await client.query<{ n: string }>('select xact_commit as n from pg_stat_database where datname = current_database()');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

function step(key: string, capability: string, dependsOn: string[] = []): StepDraft {
  return {
    key,
    title: `cost ${key}`,
    kind: 'capability',
    depends_on: dependsOn,
    capability,
    target: '',
    params: { name: key.toLowerCase() },
    expectation: null,
    precondition: null,
    max_attempts: 1,
    require_approval: false,
    spec: {},
  };
}

/**
 * What running one plan costs, from the executor's first look at it to the plan closing: a plan
 * of one step, and a plan of `wide` independent steps, so the cost of a step alone is their
 * difference divided by the extra steps.
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
    const url = bench.config.kind === 'postgres' ? bench.config.url : null;

    const run = async (steps: StepDraft[]): Promise<Counts> => {
      const draft: PlanDraft = { objective: 'cost', strategy: 'operator', assumptions: [], completion_criteria: '', abort_conditions: [], risk: '', estimate: {}, budget: {}, alternatives: [], steps };
      const validation = validate(draft, benchRegistry);
      if (!validation.valid) throw new Error(`cost plan is invalid: ${JSON.stringify(validation.errors)}`);
      const intention = await store.intentions.create({ mindId: mind.id, objective: 'cost', origin: 'operator' });
      const plan = await store.plans.create({ mindId: mind.id, intentionId: intention.id, origin: 'operator', draft, validation, status: 'validated' });
      // Only the plan under test is live, so every statement counted is spent on it.
      const xactBefore = url ? await xactCommits(url) : 0;
      const started = counter.snapshot();
      await executor.drain();
      const after = counter.snapshot();
      const xactAfter = url ? await xactCommits(url) : 0;
      const closed = await store.plans.get(plan.id);
      if (closed?.status !== 'completed') throw new Error(`cost plan ended ${closed?.status}: ${closed?.statusReason}`);
      return {
        statements: after.statements - started.statements,
        commits: after.commits - started.commits,
        ...(url ? { xactCommits: xactAfter - xactBefore - 1 } : {}),
      };
    };
    const one = await run([step('A', capability)]);
    const many = await run(Array.from({ length: wide }, (_, i) => step(`S${i}`, capability)));
    const extra = wide - 1;
    const per = (key: keyof Counts) => (many[key] === undefined ? undefined : Math.round((((many[key] as number) - (one[key] as number)) / extra) * 100) / 100);
    return {
      plan_of_one_step: one,
      per_step: { statements: per('statements')!, commits: per('commits')!, ...(url ? { xactCommits: per('xactCommits')! } : {}) },
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

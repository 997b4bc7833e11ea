// Stores full of plans for the benchmarks that ask what a pass costs as they grow, written in
// batches straight through the query layer: history (closed plans, each with a finished step
// and the execution it recorded) for the tick cost, and a backlog (running plans, each with a
// ready step) for the due read.

import { newId } from '../src/core/ids.ts';
import type { MindRecord, Store } from '../src/store/index.ts';

/** Writes `count` completed plans, each with one completed step and its execution, in batches. */
export function fillHistory(store: Store, mind: MindRecord, count: number): Promise<void> {
  return fillPlans(store, mind, count, 'closed');
}

/** Writes `count` executing plans, each with one ready step that nothing has run: a backlog of due work. */
export function fillBacklog(store: Store, mind: MindRecord, count: number): Promise<void> {
  return fillPlans(store, mind, count, 'backlog');
}

async function fillPlans(store: Store, mind: MindRecord, count: number, kind: 'closed' | 'backlog'): Promise<void> {
  const { codec, db } = store;
  const closed = kind === 'closed';
  const intention = await store.intentions.create({ mindId: mind.id, objective: kind, origin: 'operator' });
  const at = codec.time(new Date(Date.now() - 86_400_000));
  const batch = 400;
  for (let done = 0; done < count; done += batch) {
    const plans = [];
    const steps = [];
    const executions = [];
    for (let i = done; i < Math.min(count, done + batch); i += 1) {
      const planId = newId();
      const stepId = newId();
      plans.push({
        id: planId,
        mind_id: mind.id,
        intention_id: intention.id,
        revision: 1,
        objective: `${kind} ${i}`,
        origin: 'operator' as const,
        strategy: 'operator',
        status: closed ? ('completed' as const) : ('executing' as const),
        assumptions: '[]',
        abort_conditions: '[]',
        alternatives: '[]',
        estimate: '{}',
        actual: '{}',
        budget: '{}',
        validation: '{}',
        require_approval: codec.bool(false),
        closed_at: closed ? at : null,
        created_at: at,
        updated_at: at,
      });
      steps.push({
        id: stepId,
        plan_id: planId,
        mind_id: mind.id,
        host: mind.host,
        key: 'A',
        position: 0,
        title: kind,
        kind: 'capability' as const,
        depends_on: codec.textArray([]),
        capability: 'bench.read',
        target: 'a',
        params: codec.json({ name: 'a' }),
        require_approval: codec.bool(false),
        spec: '{}',
        status: closed ? ('completed' as const) : ('ready' as const),
        attempts: closed ? 1 : 0,
        max_attempts: 1,
        started_at: closed ? at : null,
        finished_at: closed ? at : null,
        created_at: at,
        updated_at: at,
      });
      if (closed)
        executions.push({
          id: newId(),
          mind_id: mind.id,
          capability: 'bench.read',
          target: 'a',
          params: codec.json({ name: 'a' }),
          origin: `plan_step:${stepId}`,
          correlation_id: intention.id,
          evidence: '{}',
          status: 'succeeded' as const,
          result: codec.json({ summary: 'read' }),
          retry_safe: codec.bool(false),
          started_at: at,
          finished_at: at,
          created_at: at,
        });
    }
    await db.insertInto('plans').values(plans).execute();
    await db.insertInto('plan_steps').values(steps).execute();
    if (executions.length > 0) await db.insertInto('tool_executions').values(executions).execute();
  }
}

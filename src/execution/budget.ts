// Budgets. What a plan has actually used is counted from the records its steps left (by
// origin), never kept in memory: invocations and approvals as the estimate counts them, so the
// two compare (a check repeated inside its window counts once), network operations and money
// from each capability's declared cost, wall time since the plan was created. Before a
// capability step acts, use plus what the step would add is compared with the budget; an
// approval request counts before it is raised, whether the step requires it or policy asks for
// it, and so does a capability request, so a plan out of operator attention asks nobody.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { Budget, Resources } from '../core/plan.ts';
import { budgetLimits } from '../planning/resources.ts';
import type { OriginCounts, PlanRecord, StepRecord } from '../store/index.ts';
import { preconditionOrigin, stepOrigin, type ExecutorContext } from './context.ts';
import type { StepDecision } from './decisions.ts';

export function zeroUse(): Resources {
  return { invocations: 0, approvals: 0, wall_seconds: 0, network_ops: 0, money: 0, tokens: 0 };
}

/** Every origin a plan's steps act under. */
export function originsOf(steps: readonly StepRecord[]): string[] {
  return steps.flatMap((s) => (s.precondition ? [stepOrigin(s.id), preconditionOrigin(s.id)] : [stepOrigin(s.id)]));
}

/** What the plan has used so far (pure). */
export function usage(plan: Pick<PlanRecord, 'createdAt'>, steps: readonly StepRecord[], counts: OriginCounts, registry: CapabilityRegistry, now: Date): Resources {
  const use = zeroUse();
  const charge = (capability: string, times: number) => {
    if (times <= 0) return;
    use.invocations += times;
    const definition = registry.get(capability);
    if (!definition) return;
    use.network_ops += definition.cost.network_ops * times;
    use.money += definition.cost.money * times;
  };
  for (const step of steps) {
    // Made once per step: each map lookup of a freshly joined string would flatten and hash it again.
    const origin = stepOrigin(step.id);
    const own = counts.executions.get(origin) ?? 0;
    switch (step.kind) {
      case 'capability':
        charge(step.capability, own);
        if (step.precondition) charge(step.precondition.capability, Math.min(1, counts.executions.get(preconditionOrigin(step.id)) ?? 0));
        break;
      case 'verify':
      case 'monitor': {
        const expected = step.kind === 'verify' ? checkCapabilityOfVerify(step, steps) : step.capability;
        charge(expected, Math.min(1, own));
        break;
      }
      default:
        break;
    }
    use.approvals += (counts.approvals.get(origin) ?? 0) + (counts.requests.get(origin) ?? 0);
  }
  use.wall_seconds = Math.max(0, Math.round((now.getTime() - plan.createdAt.getTime()) / 1000));
  return use;
}

function checkCapabilityOfVerify(step: StepRecord, steps: readonly StepRecord[]): string {
  if (step.capability) return step.capability;
  const verified = steps.find((s) => s.key === step.spec.verifies);
  return verified?.expectation?.check.capability ?? '';
}

export type BudgetVerdict = { ok: true } | { ok: false; dimension: keyof Resources; used: number; adding: number; limit: number; reason: string };

/**
 * Whether `adding` still fits the budget on top of `used` (pure). Wall time is a deadline: it is
 * spent once the plan has run that long, whatever the step would add.
 */
export function checkBudget(budget: Budget, used: Resources, adding: Partial<Resources>): BudgetVerdict {
  const limits = budgetLimits(budget);
  for (const [dimension, limit] of Object.entries(limits) as [keyof Resources, number][]) {
    const extra = dimension === 'wall_seconds' ? 0 : (adding[dimension] ?? 0);
    const over = dimension === 'wall_seconds' ? used[dimension] >= limit : used[dimension] + extra > limit;
    if (over && (extra > 0 || dimension === 'wall_seconds')) {
      return {
        ok: false,
        dimension,
        used: used[dimension],
        adding: extra,
        limit,
        reason: `budget exhausted: ${dimension.replace('_', ' ')} used ${used[dimension]}${extra ? ` + ${extra} for this step` : ''} of ${limit}`,
      };
    }
  }
  return { ok: true };
}

/** What a step the budget stops becomes (pure): blocked, with its plan blocked and its intention suspended. */
export function budgetBlock(verdict: Extract<BudgetVerdict, { ok: false }>): StepDecision {
  return { kind: 'block', reason: verdict.reason, error: verdict.reason, intention: 'budget_exhausted', blockPlan: true };
}

/** Reads the counts behind `usage` and returns the plan's use as of now. */
export async function actualUse(ctx: ExecutorContext, plan: Pick<PlanRecord, 'createdAt'>, steps: readonly StepRecord[]): Promise<Resources> {
  const counts = await ctx.store.executorQueries.countByOrigin(originsOf(steps));
  return usage(plan, steps, counts, ctx.registry, ctx.clock.now());
}

// Approved one-off actions (an operator's or an agent's call outside any plan, approved by an
// operator) whose executor claimed them and never recorded an outcome: it stopped mid-act, or
// its outcome's commit failed. A plan step in that state is recovered through its step (its
// lease, recovery.ts); a one-off request has no step, so without this it stayed `approved` and
// claimed for good: never performed again (right, for a write), and never put before anyone.
//
// Once the claim is older than its capability's timeout and the lease margin (no act still
// running can be that old: the call is cut at its timeout), what the claim's execution record
// says decides, the same way recovery decides for a step:
// - no record: the action writes none ahead (a read or an idempotent action), so the claim is
//   released and the next pass performs it again under the same approval. A stopped act that
//   was only slow moves nothing when it returns: the request's move is guarded by its claim.
// - `started`: a non-idempotent action that may or may not have happened. The request ends
//   `failed` with a `tool_failed` event coded `outcome_unknown`, told to operators: nothing
//   repeats it, and someone checks the host. Its execution record stays `started`, which is the
//   truth; a slow act that does return still finishes it.
// - finished: the act's outcome was recorded without its request's move (which commit together,
//   so only a store out of step gives this); the request takes the outcome.

import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { ApprovalRecord } from '../store/index.ts';
import { LEASE_MARGIN_SECONDS, type ExecutorContext } from './context.ts';

export type StrandedDecision = { kind: 'wait' } | { kind: 'release' } | { kind: 'unknown'; message: string } | { kind: 'finish'; to: 'executed' | 'failed' };

/** Pure: what to do about an approved one-off request still claimed (its updated_at is the claim's time). */
export function strandedDecision(approval: ApprovalRecord, execution: 'started' | 'succeeded' | 'failed' | null, definition: CapabilityDefinition | undefined, now: Date): StrandedDecision {
  // A capability no longer in the registry cannot be acting: its claim is as old as it is.
  const leaseSeconds = (definition?.timeoutSeconds ?? 0) + LEASE_MARGIN_SECONDS;
  if (now.getTime() - approval.updatedAt.getTime() < leaseSeconds * 1000) return { kind: 'wait' };
  if (execution === null) return { kind: 'release' };
  if (execution === 'started') {
    return {
      kind: 'unknown',
      message: `the executor that began ${approval.capability} on ${approval.target} (approved) stopped before recording its outcome: whether it ran is not known, and nothing will repeat it; check the host`,
    };
  }
  return { kind: 'finish', to: execution === 'succeeded' ? 'executed' : 'failed' };
}

/** Settles the stranded one-off requests of minds this daemon serves; returns how many moved. */
export async function recoverStrandedApprovals(ctx: ExecutorContext, limit: number): Promise<number> {
  const now = ctx.clock.now();
  // Candidates by the shortest lease any capability has; each is judged by its own below.
  const claimedBefore = new Date(now.getTime() - LEASE_MARGIN_SECONDS * 1000);
  let moved = 0;
  for (const { approval, execution } of await ctx.store.executorQueries.strandedApprovedActions({ host: ctx.host, limit, claimedBefore })) {
    const decision = strandedDecision(approval, execution, ctx.registry.get(approval.capability), now);
    if (decision.kind === 'wait' || approval.executionId === null) continue;
    const claim = approval.executionId;
    if (decision.kind === 'release') {
      if (await ctx.store.approvals.releaseClaim(approval.id, claim)) {
        ctx.log.warn('releasing the claim of an approved action whose executor stopped; it will be performed again', { approval: approval.id, executor: ctx.name });
        moved += 1;
      }
      continue;
    }
    const to = decision.kind === 'unknown' ? 'failed' : decision.to;
    const done = await ctx.store.transaction(async (tx) => {
      const ended = await tx.approvals.transition(approval.id, 'approved', to, { executionId: claim }, { executionId: claim });
      if (ended && decision.kind === 'unknown') {
        await tx.events.append({
          type: 'tool_failed',
          mindId: approval.mindId,
          intentionId: approval.correlationId || null,
          data: { origin: approval.origin, execution_id: claim, approval_id: approval.id, capability: approval.capability, target: approval.target, code: 'outcome_unknown', error: decision.message },
        });
      }
      return ended;
    });
    if (done) {
      if (decision.kind === 'unknown') ctx.log.warn('an approved action has an unknown outcome; an operator must check the host', { approval: approval.id, execution: claim, executor: ctx.name });
      moved += 1;
    }
  }
  return moved;
}

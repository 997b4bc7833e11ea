// Approved one-off actions (an operator's or an agent's call outside any plan, approved by an
// operator) whose executor claimed them and never recorded an outcome: it stopped mid-act, or
// its outcome's commit failed. A plan step in that state is recovered through its step (its
// lease, recovery.ts); a one-off request has no step, so without this it stayed `approved` and
// claimed for good: never performed again (right, for a write), and never put before anyone.
//
// Once the claim is older than its capability's timeout and the lease margin (no act still
// running can be that old: the call is cut at its timeout), or at once when the executor that
// claimed it is known to be gone (claimants.ts: its process has exited on this host, or its
// PostgreSQL presence lock has been free for the grace), what the claim's execution record says
// decides, the same way recovery decides for a step:
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

/** A claimed approved one-off request, with the status of the execution its claim names (null: no such row). */
export interface ClaimedAction {
  approval: ApprovalRecord;
  execution: 'started' | 'succeeded' | 'failed' | null;
}

/**
 * Pure: what to do about an approved one-off request still claimed (its updated_at is the
 * claim's time). `claimantGone`: its executor is known to have stopped, so no act of it can
 * still be running, however young the claim.
 */
export function strandedDecision(approval: ApprovalRecord, execution: ClaimedAction['execution'], definition: CapabilityDefinition | undefined, now: Date, claimantGone = false): StrandedDecision {
  // A capability no longer in the registry cannot be acting: its claim is as old as it is.
  const leaseSeconds = (definition?.timeoutSeconds ?? 0) + LEASE_MARGIN_SECONDS;
  if (!claimantGone && now.getTime() - approval.updatedAt.getTime() < leaseSeconds * 1000) return { kind: 'wait' };
  if (execution === null) return { kind: 'release' };
  if (execution === 'started') {
    return {
      kind: 'unknown',
      message: `the executor that began ${approval.capability} on ${approval.target} (approved) stopped before recording its outcome: whether it ran is not known, and nothing will repeat it; check the host`,
    };
  }
  return { kind: 'finish', to: execution === 'succeeded' ? 'executed' : 'failed' };
}

/** Settles the stranded one-off requests of minds this daemon serves, by the age of their claims; returns how many moved. */
export async function recoverStrandedApprovals(ctx: ExecutorContext, limit: number): Promise<number> {
  const now = ctx.clock.now();
  // Candidates by the shortest lease any capability has; each is judged by its own below.
  const claimedBefore = new Date(now.getTime() - LEASE_MARGIN_SECONDS * 1000);
  let moved = 0;
  for (const { approval, execution } of await ctx.store.executorQueries.claimedApprovedActions({ host: ctx.host, limit, claimedBefore })) {
    if (await settleStranded(ctx, approval, strandedDecision(approval, execution, ctx.registry.get(approval.capability), now))) moved += 1;
  }
  return moved;
}

/**
 * Settles, at once, the claimed one-off requests (`claimed`) whose claimant is among `gone`;
 * returns how many moved and the requests released to be performed again.
 */
export async function takeOverActionsFromGone(ctx: ExecutorContext, claimed: readonly ClaimedAction[], gone: readonly string[]): Promise<{ moved: number; released: string[] }> {
  const now = ctx.clock.now();
  let moved = 0;
  const released: string[] = [];
  for (const { approval, execution } of claimed) {
    if (!gone.includes(approval.claimedBy)) continue;
    ctx.log.warn('taking over the claim of an approved action whose executor is gone', { approval: approval.id, claimant: approval.claimedBy, executor: ctx.name });
    const decision = strandedDecision(approval, execution, ctx.registry.get(approval.capability), now, true);
    if (!(await settleStranded(ctx, approval, decision))) continue;
    moved += 1;
    if (decision.kind === 'release') released.push(approval.id);
  }
  return { moved, released };
}

/** Carries out a decision on a claimed request, conditional on its claim; true when it moved. */
async function settleStranded(ctx: ExecutorContext, approval: ApprovalRecord, decision: StrandedDecision): Promise<boolean> {
  if (decision.kind === 'wait' || approval.executionId === null) return false;
  const claim = approval.executionId;
  if (decision.kind === 'release') {
    const released = await ctx.store.approvals.releaseClaim(approval.id, claim);
    if (released) ctx.log.warn('releasing the claim of an approved action whose executor stopped; it will be performed again', { approval: approval.id, executor: ctx.name });
    return released;
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
    return ended !== undefined;
  });
  if (done && decision.kind === 'unknown') ctx.log.warn('an approved action has an unknown outcome; an operator must check the host', { approval: approval.id, execution: claim, executor: ctx.name });
  return done;
}

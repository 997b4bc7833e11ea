// The executor's public surface. See docs/executor.md.

export { Executor, DEFAULT_TICK_INTERVAL_MS, type ExecutorOptions } from './executor.ts';
export { tick, FORGOTTEN_PREDICTION_SECONDS, type TickOptions, type TickReport } from './tick.ts';
export { releaseStep, decideRecovery, decideRequestRecovery, OUTCOME_UNKNOWN, type OriginRecords, type Release } from './recovery.ts';
export { applyDecision, applyMoves, moveOf, type ApplyOptions, type StepScene } from './apply.ts';
export { backoffSeconds, type DecisionKind, type Effect, type StepDecision } from './decisions.ts';
export { settlement, startPlans, settlePlan, settlePlans, type Settlement } from './settle.ts';
export { reconsiderPlan, cancelOpenSteps, resumeStalledReplans } from './replan.ts';
export { checkBudget, usage, actualUse, originsOf, zeroUse, type BudgetVerdict } from './budget.ts';
export { compare, fieldAt, observe, type CheckOutcome } from './checks.ts';
export { decideApprovalPoll, decideRequestPoll, pollStep } from './polling.ts';
export { adoptInvocation, judgePrecondition, requiresApproval, repeatable } from './handlers/capability.ts';
export { decideVerification, adoptResolved, verifyCheck } from './handlers/verify.ts';
export { decideMonitor, monitorSpec, progressOf, type MonitorProgress } from './handlers/monitor.ts';
export { decideWait } from './handlers/wait.ts';
export { summariseFindings } from './handlers/internal.ts';
export { adoptRequestAnswer } from './handlers/request-capability.ts';
export { leaseSecondsFor } from './lease.ts';
export { joinedStore, inUnitOfWork } from './unit-of-work.ts';
export { quiesceMind, type Quiesced } from './quiesce.ts';
export {
  CAPPED_REQUEST_RETRY_SECONDS,
  LEASE_MARGIN_SECONDS,
  STALLED_REPLAN_SECONDS,
  preconditionOrigin,
  silentLog,
  stepOrigin,
  type ExecutorContext,
  type ExecutorLog,
} from './context.ts';

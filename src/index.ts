// The library entry (`import … from 'praxis'`): what a program embedding Praxis needs to open a
// store, validate and store plans, build the capability service and run the executor. Each name
// comes from its layer's own module; the surfaces (CLI, HTTP API, MCP, daemon) are not part of
// it. See docs/library.md.

// Vocabulary and shared types.
export { systemClock, ManualClock, addSeconds, type Clock } from './core/clock.ts';
export { InputError, type Problem } from './core/errors.ts';
export { newId, isId } from './core/ids.ts';
export {
  MAX_STEPS,
  MAX_REPLANS,
  type Budget,
  type JsonObject,
  type JsonValue,
  type PlanDraft,
  type Resources,
  type StepDraft,
  type ValidationIssue,
  type ValidationResult,
} from './core/plan.ts';
export {
  PLAN_STATUSES,
  STEP_STATUSES,
  STEP_KINDS,
  CLOSED_PLAN_STATUSES,
  EVENT_TYPES,
  POLICY_DECISIONS,
  type EventType,
  type PlanOrigin,
  type PlanStatus,
  type PolicyDecision,
  type StepKind,
  type StepStatus,
} from './core/vocabulary.ts';

// Store: opening, configuration, migrations and the record types.
export * from './store/index.ts';
export { migrateToLatest, migrateTo, migrationsFor, MIGRATION_TABLE } from './store/migrations/index.ts';

// Planning: proposal parsing, plan text, validation, the planner.
export { parseProposal, type ParsedProposal, type RefusedProposal } from './planning/proposal.ts';
export { parsePlanText, formatOfFileName, MAX_PLAN_TEXT_BYTES, type PlanText, type PlanTextFormat } from './planning/plan-text.ts';
export { assessProposal, type Assessment } from './planning/assess.ts';
export { validate, deriveTargets, withDerivedTargets, estimatePlan, VALIDATION_LIMITS } from './planning/validate.ts';
export { Planner } from './planning/planner.ts';
export type { PlannerOutcome, PlanRequest, StrategyName } from './planning/planner-types.ts';

// Capabilities: the closed registry, implementations, the service that decides and acts.
export { builtinRegistry, createRegistry, type CapabilityRegistry } from './capabilities/registry.ts';
export type { CapabilityDefinition, CapabilityCost } from './capabilities/definition.ts';
export {
  CapabilityError,
  type CapabilityImplementation,
  type CapabilityImplementations,
  type CapabilityOutcome,
  type InvocationContext,
} from './capabilities/implementation.ts';
export { builtinImplementations, type BuiltinImplementationOptions } from './capabilities/builtin-implementations.ts';
export type { CapabilityModule, CapabilityEnvironment, CapabilityEnvironmentOptions, CapabilityExample } from './capabilities/module.ts';
export { CapabilityService, type CapabilityServiceOptions } from './capabilities/service.ts';
export { DEFAULT_RULES } from './capabilities/policy/decide.ts';
export type { InvokeRequest, InvokeResult, Preview } from './capabilities/invocation.ts';
export { decideApproval, denyApproval, nameApprovalAuthor, type ApprovalAnswer } from './capabilities/approvals.ts';
export { approvalKeyFrom, type ApprovalKey } from './capabilities/policy/action-digest.ts';
export { loadApprovalKey, loadDaemonKey, defaultSecretFile, type LoadedKey } from './access/daemon-secret.ts';
export { decideRequest, requestCapability, revokeGrant, type RequestAnswer } from './capabilities/capability-requests.ts';
export { execFileRunner, fakeRunner, type CommandRunner, type CommandResult } from './capabilities/host/runner.ts';
export { SimulatedHost, SIMULATED_PROGRAMS, type SimulatedUnit, type SimulatedJournalEntry } from './capabilities/host/simulated/host.ts';

// Minds and intentions.
export { formIntention, type IntentionInput, type Formed } from './mind/intentions.ts';

// Execution: storing plans, planning intentions, the executor.
export { submitPlan, type Submission, type SubmissionResult } from './drafting/submit-plan.ts';
export { planIntention, planningFromEnv, type PlanningServices, type PlanIntentionResult } from './drafting/plan-intention.ts';
export { Executor, DEFAULT_TICK_INTERVAL_MS, type ExecutorOptions } from './execution/executor.ts';
export { releaseStep, type Release } from './execution/recovery.ts';
export type { ExecutorLog } from './execution/context.ts';
export type { TickReport } from './execution/tick.ts';
export { WakeBus } from './bus/wake-bus.ts';

// The store layer's public surface: the only module other layers import from src/store.

export { openStore, repositoriesFor, type Repositories, type Store, type StoreOptions } from './store.ts';
export {
  resolveStoreConfig,
  isPostgresUrl,
  DEFAULT_SQLITE_PATH,
  type StoreConfig,
  type SqliteStoreConfig,
  type PostgresStoreConfig,
} from './config.ts';
export { codecFor, type Codec, type StoreKind } from './codec.ts';
export type { Database } from './schema.ts';
export type { MindRecord, NewMind, MindRepository } from './repositories/minds.ts';
export type { IntentionMeans, IntentionRecord, NewIntention, IntentionRepository } from './repositories/intentions.ts';
export type { NewPlan, PlanListOptions, PlanPatch, PlanPause, PlanRecord, PlanWithSteps, PlanRepository } from './repositories/plans.ts';
export { UNPAUSABLE_PLAN_STATUSES } from './repositories/plans.ts';
export { FINAL_STEP_STATUSES, promotedStep } from './repositories/steps.ts';
export type { StepGuard, StepMove, StepPatch, StepRecord, StepRepository } from './repositories/steps.ts';
export type { EventQuery, EventRecord, NewEvent, EventRepository } from './repositories/events.ts';
export type { PolicyRuleInput, PolicyRuleRecord, PolicyRuleRepository } from './repositories/policy-rules.ts';
export type { CommitmentKind, CommitmentRecord, NewCommitment, CommitmentRepository } from './repositories/commitments.ts';
export type {
  ExecutionOutcome,
  ExecutionRecord,
  FinishedExecutionStatus,
  NewExecution,
  ExecutionRepository,
} from './repositories/executions.ts';
export type {
  ApprovalAmendment,
  ApprovalDecision,
  ApprovalListOptions,
  ApprovalGuard,
  ApprovalPatch,
  ApprovalRecord,
  NewApproval,
  ApprovalRepository,
} from './repositories/approvals.ts';
export type {
  CapabilityRequestListOptions,
  CapabilityRequestPatch,
  CapabilityRequestRecord,
  NewCapabilityRequest,
  CapabilityRequestRepository,
} from './repositories/capability-requests.ts';
export type { GrantListOptions, GrantRecord, NewGrant, GrantRepository } from './repositories/grants.ts';
export { sqliteFileHoldsPraxisStore } from './sqlite-probe.ts';
export { WakeSignals } from './wake-signals.ts';
export { listenForWakeUps, wakeChannel, type WakeListener, type WakeListenerOptions } from './wake-listener.ts';
export { presenceKey, PRESENCE_CONNECTION, type Presence, type PresenceHold, type PresenceEvents } from './presence.ts';
export type { BeliefEvidence, BeliefRecord, BeliefRevision, NewBelief, BeliefRepository } from './repositories/beliefs.ts';
export type {
  NewPrediction,
  PredictionListOptions,
  PredictionRecord,
  ResolvedPredictionStatus,
  PredictionRepository,
} from './repositories/predictions.ts';
export type {
  NewProceduralMemory,
  ProceduralMemoryRecord,
  ProceduralMemoryRepository,
} from './repositories/procedural-memories.ts';
export type { LlmCallRecord, NewLlmCall, LlmCallRepository } from './repositories/llm-calls.ts';
export type { GaugeRepository, StepCount } from './repositories/gauges.ts';
export type { NewWant, WantRecord, WantRepository } from './repositories/wants.ts';
export {
  CARRIED_COLUMNS,
  CARRIED_TABLES,
  MIND_COLUMNS,
  UNCARRIED_COLUMNS,
  type CarriedTable,
  type ColumnSpec,
  type MindBundleRepository,
  type MindRows,
  type PortableRow,
  type PortableValue,
} from './repositories/mind-bundles.ts';
export type { AccessTokenInput, AccessTokenRecord, AccessTokenRepository } from './repositories/access-tokens.ts';
export {
  LIVE_PLAN_STATUSES,
  stepStatusList,
  type Affinity,
  type DueStepQuery,
  type ApprovalScene,
  type ExecutorQueryRepository,
  type OriginCounts,
  type PlanQuery,
} from './repositories/executor-queries.ts';
export type { EventCursor, EventCursorRepository } from './repositories/event-cursors.ts';
export type { AttemptOutcome, DeliveryListOptions, DeliveryRecord, NewDelivery, WebhookDeliveryRepository } from './repositories/webhook-deliveries.ts';

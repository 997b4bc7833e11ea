// The records operations answer with, as the store defines them. Surfaces name these types
// through operations and never import the store: what they show is what an operation returned.

export type { AccessTokenRecord, ApprovalRecord, CapabilityRequestRecord, DeliveryRecord, EventRecord, MindRecord, PlanRecord, PlanWithSteps } from '../store/index.ts';
export type { InvokeResult, Preview } from '../capabilities/invocation.ts';
export type { PolicyVerdict } from '../capabilities/policy/decide.ts';

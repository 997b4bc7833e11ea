// The records operations answer with, as the store defines them. Surfaces name these types
// through operations and never import the store: what they show is what an operation returned.

export type { ApprovalRecord, CapabilityRequestRecord, DeliveryRecord, EventRecord, MindRecord, PlanWithSteps } from '../store/index.ts';
export type { Preview } from '../capabilities/invocation.ts';
export type { PolicyVerdict } from '../capabilities/policy/decide.ts';

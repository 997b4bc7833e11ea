// How plans and events read over MCP: the store's records (camelCase keys, ISO instants), as the
// HTTP API shows them, so a client sees the same plan whichever surface it asks.

import type { EventRecord, PlanWithSteps } from '../store/index.ts';
import { asJson } from './refusal.ts';

/** A plan with its steps; each step carries its expectation, observation, result or error, and the approval, request and execution it is linked to. */
export function planView(plan: PlanWithSteps): Record<string, unknown> {
  return asJson(plan);
}

export function eventView(event: EventRecord): Record<string, unknown> {
  return asJson(event);
}

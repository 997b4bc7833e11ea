// What every part of the executor works with: the store, the capability service (the only way
// to act), the registry (read-only, for leases and kinds), the clock, and the daemon's identity.
// Nothing here holds plan state: a context can be thrown away between ticks.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import type { Clock } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import type { PlanningServices } from '../drafting/plan-intention.ts';
import type { FailureTally } from './stuck.ts';

export interface ExecutorLog {
  debug(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const silentLog: ExecutorLog = { debug() {}, warn() {}, error() {} };

export interface ExecutorContext {
  readonly store: Store;
  readonly capabilities: CapabilityService;
  readonly registry: CapabilityRegistry;
  readonly clock: Clock;
  /** The daemon's host; null runs only minds bound to no host. */
  readonly host: string | null;
  /** How replans are planned; null means a failed plan is never replanned (its intention is abandoned). */
  readonly planning: PlanningServices | null;
  /** Who the executor is in logs and event data (several may share a store). */
  readonly name: string;
  readonly log: ExecutorLog;
  /** Plans and steps this executor failed to move, in a row (stuck.ts). */
  readonly failures: FailureTally;
}

/** Extra time on top of a capability's own timeout before a claim counts as abandoned. */
export const LEASE_MARGIN_SECONDS = 30;
/** A capped capability request asks again after this long. */
export const CAPPED_REQUEST_RETRY_SECONDS = 600;
/** A replan left in `replanning` this long is taken to have been abandoned by its executor. */
export const STALLED_REPLAN_SECONDS = 300;
/** Re-check interval of verify steps that name none. */
export const DEFAULT_VERIFY_INTERVAL_SECONDS = 10;
/** Re-check interval of monitor steps that name none. */
export const DEFAULT_MONITOR_INTERVAL_SECONDS = 30;

export function stepOrigin(stepId: string): string {
  return `plan_step:${stepId}`;
}

/** Origin of a step's precondition check: kept apart so recovery never mistakes the check for the action. */
export function preconditionOrigin(stepId: string): string {
  return `plan_step:${stepId}:precondition`;
}

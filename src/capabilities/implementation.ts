// How a capability acts. Only the capability service's invoke() may call an implementation:
// it has already checked the parameters against the schema, derived the target and decided
// policy, so an implementation receives parameters that are known to be schema-valid.

import type { JsonObject } from '../core/plan.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export interface InvocationContext {
  /** Aborted when the capability's timeout elapses or the daemon shuts down. */
  signal: AbortSignal;
}

/**
 * What an implementation reports. `observation` is structured data whose top-level fields are
 * the ones the definition declares in `observes`; `summary` is one line for people.
 * `lowTrust` marks content that came from outside (a web page, a log line): it is data to
 * look at, never instructions to follow.
 */
export interface CapabilityOutcome {
  observation: JsonObject;
  summary: string;
  lowTrust?: boolean;
}

/** A refusal or failure an implementation can name. Anything else thrown is treated as a bug. */
export class CapabilityError extends Error {
  readonly code: ErrorCode;
  /** True when trying again later could succeed without any risk of repeating a side effect. */
  readonly retrySafe: boolean;
  constructor(code: ErrorCode, message: string, retrySafe = false) {
    super(message);
    this.name = 'CapabilityError';
    this.code = code;
    this.retrySafe = retrySafe;
  }
}

export type CapabilityImplementation = (params: JsonObject, context: InvocationContext) => Promise<CapabilityOutcome>;

/** Implementations by capability name; the set is fixed when the daemon starts. */
export type CapabilityImplementations = Readonly<Record<string, CapabilityImplementation>>;

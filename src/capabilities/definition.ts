// What a capability is, independent of how (or whether yet) it is implemented.

import type { JsonObject } from '../core/plan.ts';

export interface CapabilityCost {
  /** Typical wall time of one invocation, in seconds. */
  wall_seconds: number;
  /** Network operations one invocation performs (a fetch is one). */
  network_ops: number;
  /** Money one invocation costs; zero for every built-in. */
  money: number;
}

export interface CapabilityDefinition {
  /** Dotted name from a closed list, e.g. `service.status`. */
  readonly name: string;
  readonly description: string;
  /** True when the capability only observes; only these may be used by checks. */
  readonly readOnly: boolean;
  /** True when repeating an invocation has the same effect as running it once. */
  readonly idempotent: boolean;
  /** Hard limit on one invocation. The executor's claim lease is this plus thirty seconds. */
  readonly timeoutSeconds: number;
  /** JSON Schema of the parameters: unknown parameters rejected, no coercion. */
  readonly paramsSchema: JsonObject;
  /**
   * The policy target an invocation acts on, derived from already schema-valid parameters
   * (the unit for service and log capabilities, the host name for browser ones).
   */
  target(params: JsonObject): string;
  /** A locked capability is registered but always refused, by validation and by policy. */
  readonly locked: boolean;
  readonly cost: CapabilityCost;
  /**
   * Top-level fields of the observation the capability returns; a check may only compare a
   * field (or a dotted path below one) named here.
   */
  readonly observes: readonly string[];
}

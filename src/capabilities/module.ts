// A capability as one unit: what it is (the definition the registry holds), how it acts (a
// factory that loads its implementation code only when first invoked, so that `praxis validate`
// and an idle daemon never load host or browser code) and an example that runs on a simulated
// host. The catalogue (catalogue/index.ts) lists these modules; the registry and the
// implementations are both built from that one list, so neither can name a capability the
// other lacks.

import type { JsonObject } from '../core/plan.ts';
import type { SafeFetch, SafeFetchOptions } from './browser/safe-fetch.ts';
import type { CapabilityDefinition } from './definition.ts';
import type { StatfsFunction } from './host/host-disk-usage.ts';
import type { CommandRunner } from './host/runner.ts';
import type { SimulatedHost } from './host/simulated/host.ts';
import type { CapabilityImplementation } from './implementation.ts';

/**
 * What implementations act through, shared by every capability of one process. The runner and
 * the HTTP client are built at their first use, so a capability that needs neither loads
 * neither.
 */
export interface CapabilityEnvironment {
  /** Runs systemctl and journalctl: the real programs, or a simulated host's. */
  runner(): Promise<CommandRunner>;
  /** The SSRF-safe HTTP client the browser capabilities share. */
  safeFetch(): Promise<SafeFetch>;
  /** Where /proc is; a fixture tree in tests. */
  readonly procRoot: string;
  /** statfs for host.disk.usage; replaceable so tests can feed fixture numbers. */
  readonly statfs?: StatfsFunction;
}

/** How the environment is made; every field is optional and a daemon passes none. */
export interface CapabilityEnvironmentOptions {
  runner?: CommandRunner;
  procRoot?: string;
  statfs?: StatfsFunction;
  fetch?: SafeFetchOptions;
}

/**
 * One invocation that succeeds on a simulated host: `prepare` seeds the host with what the
 * capability needs there (a unit, journal entries, a page) and returns the parameters. The
 * catalogue test runs every registered capability's example through the capability service.
 */
export type CapabilityExample = (host: SimulatedHost) => JsonObject | Promise<JsonObject>;

export interface CapabilityModule {
  readonly definition: CapabilityDefinition;
  /** Loads the implementation's code (behind import()) and builds it for this environment. */
  implement(environment: CapabilityEnvironment): Promise<CapabilityImplementation>;
  readonly example: CapabilityExample;
}

// The simulated host `praxis demo` acts on, and the built-in implementations wired to it: the
// composition the demo needs below the operations, kept here so the CLI command (a surface)
// only starts it. Loaded when the demo starts, so other commands never pay for the host.

import { builtinImplementations } from '../capabilities/builtin-implementations.ts';
import type { CapabilityImplementations } from '../capabilities/implementation.ts';
import { SimulatedHost } from '../capabilities/host/simulated/host.ts';

export interface DemoHost {
  host: SimulatedHost;
  /** The built-in capabilities, running their programs on the simulated host. */
  implementations: CapabilityImplementations;
  /** Removes the host's files; call once the daemon has stopped. */
  remove(): void;
}

export function createDemoHost(): DemoHost {
  const host = SimulatedHost.create();
  return { host, implementations: builtinImplementations({ runner: host.runner() }), remove: () => host.remove() };
}

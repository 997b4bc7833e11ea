// The built-in capability implementations as the daemon holds them. Each entry loads its
// capability's code at its first call (builtinImplementations builds them from the catalogue),
// so a daemon waiting for work loads no host or browser code; the first action pays once. What
// is checked here, at start-up, is that every capability the daemon's registry names has an
// implementation: a definition without one stops the daemon instead of surfacing as
// not_implemented at its first use.

import { type BuiltinImplementationOptions, builtinImplementations } from '../capabilities/builtin-implementations.ts';
import type { CapabilityImplementations } from '../capabilities/implementation.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';

/** The built-in implementations (builtinImplementations with these options) of every capability in `registry`. */
export function deferredBuiltins(registry: CapabilityRegistry, options: BuiltinImplementationOptions = {}): CapabilityImplementations {
  const implementations = builtinImplementations(options);
  const missing = registry
    .list()
    .map(({ name }) => name)
    .filter((name) => !Object.hasOwn(implementations, name));
  if (missing.length > 0) throw new Error(`no implementation for the registered capabilities ${missing.join(', ')}`);
  return implementations;
}

// The built-in capability implementations as the daemon holds them: one entry per registered
// capability, whose first call loads the implementations (the host programs' runner, and the
// browser capabilities' HTTP client and HTML parser). A daemon waiting for work never loads
// them, which keeps its start-up time and idle memory down; the first action pays once.

import type { BuiltinImplementationOptions } from '../capabilities/builtin-implementations.ts';
import { CapabilityError, type CapabilityImplementation, type CapabilityImplementations } from '../capabilities/implementation.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';

/** Implementations of every capability in `registry` that call into what `load` resolves to. */
export function deferredImplementations(registry: CapabilityRegistry, load: () => Promise<CapabilityImplementations>): CapabilityImplementations {
  let loaded: Promise<CapabilityImplementations> | null = null;
  const loadOnce = () =>
    (loaded ??= load().catch((error: unknown) => {
      loaded = null; // a failed load is tried again by the next call
      throw error;
    }));
  const entries = registry.list().map(({ name }): [string, CapabilityImplementation] => [
    name,
    async (params, context) => {
      const implementation = (await loadOnce())[name];
      if (!implementation) throw new CapabilityError('not_implemented', `${name} has no implementation in this daemon`);
      return implementation(params, context);
    },
  ]);
  return Object.freeze(Object.fromEntries(entries));
}

/** The built-in implementations (builtinImplementations with these options), loaded at the first call. */
export function deferredBuiltins(registry: CapabilityRegistry, options: BuiltinImplementationOptions = {}): CapabilityImplementations {
  return deferredImplementations(registry, async () => (await import('../capabilities/builtin-implementations.ts')).builtinImplementations(options));
}

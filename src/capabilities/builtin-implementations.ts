// The implementations of the catalogue's capabilities, one entry per module. Each entry loads
// its capability's code at its first call (module.implement), and the shared runner and HTTP
// client are built at their first use, so holding the implementations costs nothing: an idle
// daemon or a CLI command that acts once loads only what it uses. The host runner defaults to
// the real systemctl and journalctl; tests and `praxis demo` pass a simulated one instead.

import { CATALOGUE } from './catalogue/index.ts';
import { CapabilityError, type CapabilityImplementation, type CapabilityImplementations } from './implementation.ts';
import type { CapabilityEnvironment, CapabilityEnvironmentOptions, CapabilityModule } from './module.ts';

export interface BuiltinImplementationOptions extends CapabilityEnvironmentOptions {
  /** Modules beyond the catalogue, in the order they are listed (tests add their own this way). */
  extra?: readonly CapabilityModule[];
}

export function builtinImplementations(options: BuiltinImplementationOptions = {}): CapabilityImplementations {
  return implementationsOf([...CATALOGUE, ...(options.extra ?? [])], capabilityEnvironment(options));
}

/** One entry per module, each building its implementation at its first call. */
function implementationsOf(modules: readonly CapabilityModule[], environment: CapabilityEnvironment): CapabilityImplementations {
  const entries = new Map<string, CapabilityImplementation>();
  for (const module of modules) {
    const { name } = module.definition;
    if (entries.has(name)) throw new Error(`capability ${name} is listed twice`);
    const build = once(async () => {
      const implementation = await module.implement(environment);
      if (typeof implementation !== 'function') throw new CapabilityError('not_implemented', `the module of ${name} built no implementation`);
      return implementation;
    });
    entries.set(name, async (params, context) => (await build())(params, context));
  }
  return Object.freeze(Object.fromEntries(entries));
}

export function capabilityEnvironment(options: CapabilityEnvironmentOptions = {}): CapabilityEnvironment {
  const runner = options.runner;
  return {
    runner: once(async () => runner ?? (await import('./host/runner.ts')).execFileRunner()),
    safeFetch: once(async () => (await import('./browser/safe-fetch.ts')).createSafeFetch(options.fetch)),
    // The kernel's (host/proc-files.ts's DEFAULT_PROC_ROOT), named here so that holding an
    // environment loads no host code.
    procRoot: options.procRoot ?? '/proc',
    ...(options.statfs ? { statfs: options.statfs } : {}),
  };
}

/** The first call's promise, shared by every later call; a failed one is tried again. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | null = null;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = null;
      throw error;
    }));
}

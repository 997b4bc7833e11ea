// The implementations of the nine built-in capabilities, assembled once at start-up. The host
// runner defaults to the real systemctl and journalctl; tests and `praxis demo` pass a
// simulated one instead.

import { browserImplementations, type SafeFetchOptions } from './browser/index.ts';
import { execFileRunner, hostImplementations, type CommandRunner } from './host/index.ts';
import type { CapabilityImplementations } from './implementation.ts';

export interface BuiltinImplementationOptions {
  runner?: CommandRunner;
  procRoot?: string;
  fetch?: SafeFetchOptions;
}

export function builtinImplementations(options: BuiltinImplementationOptions = {}): CapabilityImplementations {
  return Object.freeze({
    ...hostImplementations({ runner: options.runner ?? execFileRunner(), ...(options.procRoot ? { procRoot: options.procRoot } : {}) }),
    ...browserImplementations(options.fetch ? { fetch: options.fetch } : {}),
  });
}

// Which capabilities this installation has: the built-ins. The composition root decides it, so
// a surface that checks plans without opening a store (`praxis validate`) asks here rather than
// reaching into src/capabilities; nothing else is loaded with it.

import { builtinRegistry, type CapabilityRegistry } from '../capabilities/registry.ts';

export function localRegistry(): CapabilityRegistry {
  return builtinRegistry();
}

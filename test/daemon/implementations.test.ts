// The daemon's implementations: one for every capability its registry names, checked when it
// starts rather than at a capability's first use.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { deferredBuiltins } from '../../src/daemon/implementations.ts';
import { hostUptime } from '../capabilities/fixtures/host-uptime.ts';

describe('the daemon’s capability implementations', () => {
  it('holds one for every registered capability', () => {
    const registry = builtinRegistry();
    const implementations = deferredBuiltins(registry);
    assert.deepEqual(
      Object.keys(implementations).sort(),
      registry
        .list()
        .map(({ name }) => name)
        .sort(),
    );
  });

  it('refuses to start with a registered capability it cannot implement, naming it', () => {
    assert.throws(() => deferredBuiltins(builtinRegistry({ extra: [hostUptime] })), /no implementation for the registered capabilities host\.uptime\.status/);
  });
});

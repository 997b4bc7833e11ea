// A capability is one module, listed once in the catalogue: the registry and the implementations
// are both built from that list. These tests hold them to it (every registered definition loads
// an implementation, every implementation has a definition), run every module's example on a
// simulated host through the capability service, and add a capability from a test fixture with
// its module and one registry line.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinImplementations, capabilityEnvironment } from '../../src/capabilities/builtin-implementations.ts';
import { CATALOGUE } from '../../src/capabilities/catalogue/index.ts';
import { fakeRunner } from '../../src/capabilities/host/runner.ts';
import { SIMULATED_PAGE_ADDRESS, SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import { CapabilityError, type CapabilityImplementation, type CapabilityImplementations } from '../../src/capabilities/implementation.ts';
import type { CapabilityModule } from '../../src/capabilities/module.ts';
import { type CapabilityRegistry, builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { useStore } from '../support/stores.ts';
import { hostUptime } from './fixtures/host-uptime.ts';

/** The capabilities this test adds to the catalogue: one line for the fixture's module. */
const EXTRA: readonly CapabilityModule[] = [hostUptime];

const noPrograms = fakeRunner(() => ({ exitCode: 1, stdout: '', stderr: 'no program runs in this test', truncated: false }));

/**
 * Registered names whose implementation is missing or does not load, and implemented names that
 * nothing registers. Loading runs each module's implement(): the code behind its import().
 */
async function gaps(registry: CapabilityRegistry, modules: readonly CapabilityModule[], implementations: CapabilityImplementations) {
  const environment = capabilityEnvironment({ runner: noPrograms });
  const loaded = new Set<string>();
  for (const module of modules) {
    const implementation = await module.implement(environment).catch(() => undefined);
    if (typeof implementation === 'function') loaded.add(module.definition.name);
  }
  const registered = registry.list().map((definition) => definition.name);
  return {
    unimplemented: registered.filter((name) => !loaded.has(name) || typeof implementations[name] !== 'function'),
    unregistered: [...new Set([...loaded, ...Object.keys(implementations)])].filter((name) => !registry.has(name)).sort(),
  };
}

describe('the capability catalogue', () => {
  const current = useStore('sqlite');
  let host: SimulatedHost;

  before(() => {
    host = SimulatedHost.create();
  });
  after(() => host.remove());

  async function serviceWith(extra: readonly CapabilityModule[]) {
    const { store } = current();
    const implementations = builtinImplementations({ extra, runner: host.runner(), fetch: { allowAddresses: [SIMULATED_PAGE_ADDRESS] } });
    const service = new CapabilityService(store, builtinRegistry({ extra }), implementations);
    const mind = await store.minds.create({ name: `catalogue-${Math.random().toString(36).slice(2, 8)}` });
    // Every example is run as an allowed call; what policy asks about is tested elsewhere.
    await store.policyRules.set({ mindId: mind.id, capability: '*', targetPattern: '*', decision: 'allow', approvers: 1 });
    return { service, mind };
  }

  it('loads an implementation for every registered definition, and implements nothing unregistered', async () => {
    assert.deepEqual(await gaps(builtinRegistry(), CATALOGUE, builtinImplementations({ runner: noPrograms })), { unimplemented: [], unregistered: [] });
    assert.equal(builtinRegistry().list().length, CATALOGUE.length);
  });

  it('names a definition whose implementation does not load, and an implementation without a definition', async () => {
    const unloadable: CapabilityModule = {
      ...hostUptime,
      definition: { ...hostUptime.definition, name: 'host.unloadable.status' },
      implement: async () => (await import(`./fixtures/${'missing'}.ts`)).implementation,
    };
    const registry = builtinRegistry({ extra: [unloadable] });
    const withStray = { ...builtinImplementations({ runner: noPrograms }), 'host.stray.status': await hostUptime.implement(capabilityEnvironment()) };
    assert.deepEqual(await gaps(registry, [...CATALOGUE, unloadable, hostUptime], withStray), {
      unimplemented: ['host.unloadable.status'],
      unregistered: ['host.stray.status', 'host.uptime.status'],
    });
  });

  it('answers not_implemented for a module that builds no implementation, when it is invoked', async () => {
    const empty: CapabilityModule = { ...hostUptime, implement: async () => undefined as unknown as CapabilityImplementation };
    const implementations = builtinImplementations({ extra: [empty], runner: noPrograms });
    await assert.rejects(
      implementations['host.uptime.status']!({}, { signal: new AbortController().signal }),
      (error: unknown) => error instanceof CapabilityError && error.code === 'not_implemented',
    );
  });

  it('runs every capability’s example on a simulated host through the service, observing the fields it declares', async () => {
    const { service, mind } = await serviceWith([]);
    for (const { definition, example } of CATALOGUE) {
      const params = await example(host);
      const result = await service.invoke({ mindId: mind.id, capability: definition.name, params, origin: `operator:catalogue-test`, authoredBy: 'tester' });
      assert.equal(result.status, 'executed', `${definition.name}: ${JSON.stringify(result)}`);
      if (result.status !== 'executed') continue;
      for (const field of definition.observes) assert.ok(field in result.observation, `${definition.name} observes ${field}`);
    }
    assert.equal(host.unit('example.service')?.restarts, 1, 'the restart example reached the simulated systemctl');
  });

  it('adds a capability from a test fixture by its module and one registry line, and invokes it through the service', async () => {
    assert.equal(builtinRegistry().has('host.uptime.status'), false, 'the fixture is not a built-in');
    const { service, mind } = await serviceWith(EXTRA);
    const refused = await service.invoke({ mindId: mind.id, capability: 'host.uptime.status', params: { since: 'boot' }, origin: 'operator:catalogue-test' });
    assert.equal(refused.status === 'failed' && refused.code, 'invalid_params', 'its schema is enforced like a built-in’s');
    const result = await service.invoke({ mindId: mind.id, capability: 'host.uptime.status', params: await hostUptime.example(host), origin: 'operator:catalogue-test' });
    assert.equal(result.status, 'executed', JSON.stringify(result));
    if (result.status !== 'executed') return;
    assert.equal(typeof result.observation.uptime_seconds, 'number');
    assert.ok((result.observation.uptime_seconds as number) > 0);
    assert.equal(typeof result.observation.idle_seconds, 'number');
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_CAPABILITIES } from '../../src/capabilities/catalogue/index.ts';
import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import { builtinRegistry, createRegistry } from '../../src/capabilities/registry.ts';
import type { JsonObject } from '../../src/core/plan.ts';

const registry = builtinRegistry();

const NAMES = ['service.status', 'service.restart', 'logs.query', 'host.disk.usage', 'host.memory.status', 'host.process.list', 'browser.navigate', 'browser.read', 'browser.links'];

function codesAndPaths(name: string, params: unknown): string[] {
  return registry.checkParams(name, params).map((i) => `${i.code} ${i.path}`);
}

function accepts(name: string, params: unknown): void {
  assert.deepEqual(registry.checkParams(name, params), [], `${name} should accept ${JSON.stringify(params)}`);
}

function refusesAt(name: string, params: unknown, path: string): void {
  const issues = registry.checkParams(name, params);
  assert.ok(
    issues.some((i) => i.code === 'invalid_params' && i.path === path),
    `${name} should refuse ${JSON.stringify(params)} at ${path}; got ${JSON.stringify(issues)}`,
  );
}

function walkObjects(schema: unknown, visit: (s: Record<string, unknown>) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object') visit(s);
  for (const sub of Object.values((s.properties as object | undefined) ?? {})) walkObjects(sub, visit);
  if (s.items) walkObjects(s.items, visit);
}

describe('capability registry', () => {
  it('holds exactly the nine built-ins, in order', () => {
    assert.deepEqual(
      registry.list().map((d) => d.name),
      NAMES,
    );
    for (const name of NAMES) assert.equal(registry.has(name), true);
    assert.equal(registry.has('shell.exec'), false);
    assert.equal(registry.get('shell.exec'), undefined);
    assert.equal(registry.has('__proto__'), false);
    assert.equal(registry.has('toString'), false);
  });

  it('is closed: frozen, with no way to register or replace a capability', () => {
    assert.ok(Object.isFrozen(registry));
    assert.deepEqual(Object.keys(registry).sort(), ['checkParamLimits', 'checkParams', 'get', 'has', 'list', 'targetOf']);
    assert.throws(() => {
      (registry as unknown as Record<string, unknown>).register = () => undefined;
    }, TypeError);
    assert.throws(() => {
      (registry as unknown as Record<string, unknown>).get = () => undefined;
    }, TypeError);
    const list = registry.list() as CapabilityDefinition[];
    assert.ok(Object.isFrozen(list));
    assert.throws(() => list.push(BUILTIN_CAPABILITIES[0]!), TypeError);
    const restart = registry.get('service.restart')!;
    assert.ok(Object.isFrozen(restart));
    assert.throws(() => {
      (restart as { locked: boolean }).locked = true;
    }, TypeError);
    assert.throws(() => {
      (restart as { readOnly: boolean }).readOnly = true;
    }, TypeError);
    assert.ok(Object.isFrozen(restart.paramsSchema));
    assert.ok(Object.isFrozen(restart.paramsSchema.properties));
    assert.ok(Object.isFrozen(restart.observes));
    assert.ok(Object.isFrozen(restart.cost));
  });

  it('is not affected by later changes to the definitions it was built from', () => {
    const source: CapabilityDefinition = {
      ...BUILTIN_CAPABILITIES[0]!,
      name: 'test.status',
      paramsSchema: structuredClone(BUILTIN_CAPABILITIES[0]!.paramsSchema) as JsonObject,
      observes: ['unit'],
    };
    const own = createRegistry([source]);
    (source.paramsSchema as { additionalProperties: unknown }).additionalProperties = true;
    (source as { locked: boolean }).locked = true;
    assert.equal(own.get('test.status')!.locked, false);
    assert.equal(own.checkParams('test.status', { unit: 'a.service', extra: 1 }).length, 1);
  });

  it('refuses duplicate names at creation', () => {
    assert.throws(() => createRegistry([BUILTIN_CAPABILITIES[0]!, BUILTIN_CAPABILITIES[0]!]), /defined twice/);
  });

  it('refuses malformed definitions at creation', () => {
    const base = BUILTIN_CAPABILITIES[0]!;
    assert.throws(() => createRegistry([{ ...base, name: 'Shell' }]), /name/);
    assert.throws(() => createRegistry([{ ...base, paramsSchema: { type: 'object', properties: {} } }]), /additionalProperties/);
    assert.throws(
      () =>
        createRegistry([
          {
            ...base,
            paramsSchema: {
              type: 'object',
              additionalProperties: false,
              properties: { inner: { type: 'object', properties: {} } },
            },
          },
        ]),
      /additionalProperties/,
    );
    assert.throws(() => createRegistry([{ ...base, observes: [] }]), /observes/);
    assert.throws(() => createRegistry([{ ...base, timeoutSeconds: 0 }]), /timeout/);
    assert.throws(() => createRegistry([{ ...base, cost: { wall_seconds: -1, network_ops: 0, money: 0 } }]), /cost/);
    // ajv strict mode: an unknown keyword is a bug in the schema, not something to ignore.
    assert.throws(() => createRegistry([{ ...base, paramsSchema: { type: 'object', additionalProperties: false, properties: {}, colour: 'red' } }]));
  });

  it('builds every built-in with a tight definition', () => {
    for (const d of registry.list()) {
      walkObjects(d.paramsSchema, (s) => assert.equal(s.additionalProperties, false, `${d.name} has an open object`));
      assert.equal(d.cost.money, 0, d.name);
      assert.ok(d.timeoutSeconds > 0 && d.timeoutSeconds <= 300, d.name);
      assert.ok(d.observes.length > 0, d.name);
      assert.equal(d.locked, false, d.name);
      assert.ok(d.description.length > 0, d.name);
      if (d.name.startsWith('browser.')) {
        assert.equal(d.cost.network_ops, 1, d.name);
        assert.equal(d.readOnly, true, d.name);
      } else {
        assert.equal(d.cost.network_ops, 0, d.name);
      }
    }
    const restart = registry.get('service.restart')!;
    assert.equal(restart.readOnly, false);
    assert.equal(restart.idempotent, false);
    const status = registry.get('service.status')!;
    assert.equal(status.readOnly, true);
    assert.equal(status.idempotent, true);
    assert.deepEqual([...status.observes], ['unit', 'load_state', 'active_state', 'sub_state', 'since', 'main_pid']);
    assert.deepEqual([...registry.get('host.process.list')!.observes], ['processes', 'count']);
    assert.equal(
      registry
        .list()
        .filter((d) => !d.readOnly)
        .map((d) => d.name)
        .join(),
      'service.restart',
    );
  });

  it('returns the same registry from builtinRegistry', () => {
    assert.equal(builtinRegistry(), registry);
  });
});

describe('parameter schemas', () => {
  it('reports an unknown capability', () => {
    assert.deepEqual(codesAndPaths('shell.exec', {}), ['unknown_capability capability']);
  });

  it('reject unknown parameters', () => {
    for (const [name, params] of [
      ['service.status', { unit: 'nginx.service', force: true }],
      ['service.restart', { unit: 'nginx.service', mode: 'replace' }],
      ['host.memory.status', { verbose: true }],
      ['browser.read', { url: 'https://example.com', script: 'x' }],
    ] as const) {
      const issues = registry.checkParams(name, params);
      assert.equal(issues.length, 1, JSON.stringify(issues));
      assert.equal(issues[0]!.code, 'invalid_params');
      assert.match(issues[0]!.message, /is not a parameter of/);
    }
    assert.deepEqual(codesAndPaths('service.restart', { unit: 'nginx.service', mode: 'x' }), ['invalid_params params.mode']);
  });

  it('do not coerce types', () => {
    refusesAt('logs.query', { unit: 'nginx.service', lines: '5' }, 'params.lines');
    assert.match(registry.checkParams('logs.query', { unit: 'nginx.service', lines: '5' })[0]!.message, /integer/);
    refusesAt('logs.query', { unit: 'nginx.service', lines: 5.5 }, 'params.lines');
    refusesAt('logs.query', { unit: 'nginx.service', priority: 3 }, 'params.priority');
    refusesAt('host.process.list', { limit: '10' }, 'params.limit');
    refusesAt('host.process.list', { limit: true }, 'params.limit');
    refusesAt('service.status', { unit: ['nginx.service'] }, 'params.unit');
    refusesAt('service.status', null, 'params');
    refusesAt('service.status', [], 'params');
  });

  it('do not fill in defaults or drop fields', () => {
    const params = { unit: 'nginx.service', extra: 1 };
    registry.checkParams('service.status', params);
    assert.deepEqual(params, { unit: 'nginx.service', extra: 1 });
  });

  it('require the unit and check it is a unit name', () => {
    assert.deepEqual(codesAndPaths('service.status', {}), ['invalid_params params.unit']);
    assert.deepEqual(codesAndPaths('logs.query', { lines: 10 }), ['invalid_params params.unit']);
    refusesAt('service.restart', { unit: '--help.service' }, 'params.unit');
    refusesAt('service.status', { unit: 'nginx.service;id' }, 'params.unit');
    refusesAt('service.status', { unit: 'nginx' }, 'params.unit');
    const [issue] = registry.checkParams('service.status', { unit: 'foo@.service' });
    assert.match(issue!.message, /instance/);
    accepts('service.status', { unit: 'getty@tty1.service' });
    accepts('service.restart', { unit: 'atlas-worker.service' });
  });

  it('bound logs.query', () => {
    accepts('logs.query', { unit: 'nginx.service' });
    accepts('logs.query', {
      unit: 'nginx.service',
      since: '-15min',
      until: '2026-01-02 10:00',
      lines: 1000,
      priority: 'err',
      grep: 'timeout|refused',
    });
    for (const since of ['-2h', '-1d', '-30s', '-9999min', '2026-01-02', '2026-01-02 10:00:59', '2026-01-02T10:00:00Z', '2026-01-02T10:00:00.123+02:00']) {
      accepts('logs.query', { unit: 'nginx.service', since });
    }
    for (const since of ['yesterday', '-10000min', '-5m', '-1w', '15min', '2026-13-01', '2026-01-02 25:00', '2026-01-02T10:00:00Z; rm', '--since=now', '']) {
      refusesAt('logs.query', { unit: 'nginx.service', since }, 'params.since');
    }
    for (const priority of ['0', '7', 'emerg', 'debug']) accepts('logs.query', { unit: 'nginx.service', priority });
    for (const priority of ['8', 'error', 'ERR', '']) refusesAt('logs.query', { unit: 'nginx.service', priority }, 'params.priority');
    for (const lines of [0, 1001, -1]) refusesAt('logs.query', { unit: 'nginx.service', lines }, 'params.lines');
    for (const grep of ['a\nb', 'a\rb', 'x'.repeat(129), '']) refusesAt('logs.query', { unit: 'nginx.service', grep }, 'params.grep');
    accepts('logs.query', { unit: 'nginx.service', grep: 'x'.repeat(128) });
  });

  it('bound the host capabilities', () => {
    accepts('host.disk.usage', {});
    accepts('host.disk.usage', { path: '/var/lib/postgresql' });
    for (const path of ['var', '/var/../etc', '/..', '/a/b/..', '', '/a\nb', `/${'a'.repeat(4096)}`]) {
      refusesAt('host.disk.usage', { path }, 'params.path');
    }
    accepts('host.memory.status', {});
    accepts('host.process.list', {});
    accepts('host.process.list', { sort: 'memory', limit: 100 });
    refusesAt('host.process.list', { sort: 'pid' }, 'params.sort');
    refusesAt('host.process.list', { limit: 101 }, 'params.limit');
    refusesAt('host.process.list', { limit: 0 }, 'params.limit');
  });

  it('refuse browser URLs that are not plain http(s)', () => {
    accepts('browser.navigate', { url: 'https://example.com/a?b=c#d' });
    accepts('browser.read', { url: 'http://example.com:8080/', max_chars: 100000 });
    accepts('browser.links', { url: 'https://example.com', limit: 500 });
    const refused = [
      'ftp://example.com/file',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,<b>x</b>',
      'https://user:secret@example.com/',
      'https://user@example.com/',
      'https://@example.com/',
      `https://example.com/${'a'.repeat(2048)}`,
      'https:///path-only',
      'https://',
      'example.com',
      '//example.com',
      'https://exa mple.com/',
      'https://example.com/\n',
      'https://example.com\\@evil.com/',
      '',
    ];
    for (const url of refused) {
      for (const name of ['browser.navigate', 'browser.read', 'browser.links']) refusesAt(name, { url }, 'params.url');
    }
    const [javascript] = registry.checkParams('browser.read', { url: 'javascript:alert(1)' });
    assert.match(javascript!.message, /only http and https/);
    const [userInfo] = registry.checkParams('browser.read', { url: 'https://user:pw@example.com/' });
    assert.match(userInfo!.message, /user information/);
    refusesAt('browser.read', { url: 'https://example.com', max_chars: 100001 }, 'params.max_chars');
    refusesAt('browser.links', { url: 'https://example.com', limit: 501 }, 'params.limit');
    refusesAt('browser.links', { url: 'https://example.com', max_chars: 10 }, 'params.max_chars');
  });
});

describe('targets', () => {
  it('derive the target from the parameters', () => {
    assert.equal(registry.targetOf('service.status', { unit: 'nginx.service' }), 'nginx.service');
    assert.equal(registry.targetOf('service.restart', { unit: 'atlas-worker.service' }), 'atlas-worker.service');
    assert.equal(registry.targetOf('logs.query', { unit: 'db.service', lines: 5 }), 'db.service');
    assert.equal(registry.targetOf('host.disk.usage', {}), '/');
    assert.equal(registry.targetOf('host.disk.usage', { path: '/var' }), '/var');
    assert.equal(registry.targetOf('host.memory.status', {}), 'host');
    assert.equal(registry.targetOf('host.process.list', { limit: 5 }), 'host');
    assert.equal(registry.targetOf('browser.navigate', { url: 'https://Docs.Example.COM:8443/x' }), 'docs.example.com');
    assert.equal(registry.targetOf('browser.read', { url: 'http://EXAMPLE.org' }), 'example.org');
    assert.equal(registry.targetOf('browser.links', { url: 'https://bücher.example/' }), 'xn--bcher-kva.example');
  });

  it('derive nothing from refused parameters or unknown capabilities', () => {
    assert.equal(registry.targetOf('service.status', { unit: 'nginx' }), '');
    assert.equal(registry.targetOf('service.status', { unit: 'nginx.service', x: 1 }), '');
    assert.equal(registry.targetOf('browser.read', { url: 'ftp://example.com' }), '');
    assert.equal(registry.targetOf('shell.exec', { unit: 'nginx.service' }), '');
  });
});

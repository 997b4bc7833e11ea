// The nine built-ins through the one door: CapabilityService.invoke with the real registry,
// the real command runner against the simulated host's fixture programs, real /proc readings,
// and the web client against a local server that only this test allows.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import type { InvokeRequest } from '../../src/capabilities/invocation.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { LOOPBACK_ONLY, html, startServer, type TestServer } from '../browser/support.ts';
import { useStore } from '../support/stores.ts';

describe('built-in capabilities through invoke', () => {
  const current = useStore('sqlite');
  let host: SimulatedHost;
  let web: TestServer;

  before(async () => {
    host = SimulatedHost.create().seedExample();
    web = await startServer();
    web.route('/status', (_req, res) => html(res, '<html><head><title>Status</title></head><body><p>All systems go</p><a href="/next">next</a></body></html>'));
  });
  after(async () => {
    host.remove();
    await web.close();
  });

  async function setUp() {
    const { store } = current();
    const service = new CapabilityService(store, builtinRegistry(), builtinImplementations({ runner: host.runner(), fetch: { allowAddresses: [...LOOPBACK_ONLY] } }));
    const mind = await store.minds.create({ name: `ops-${Math.random().toString(36).slice(2, 8)}` });
    const call = (capability: string, params: unknown, over: Partial<InvokeRequest> = {}): InvokeRequest => ({
      mindId: mind.id,
      capability,
      params,
      origin: `plan_step:${crypto.randomUUID()}`,
      // Four eyes: an action with no recorded author cannot be approved.
      authoredBy: 'tester',
      ...over,
    });
    return { store, service, mind, call };
  }

  it('reads a unit’s status as an allowed bounded read', async () => {
    const { service, call } = await setUp();
    const result = await service.invoke(call('service.status', { unit: 'nginx.service' }));
    assert.equal(result.status, 'executed');
    if (result.status !== 'executed') return;
    assert.equal(result.observation.active_state, 'active');
    assert.equal(result.observation.sub_state, 'running');
    assert.equal(result.observation.main_pid, 812);
  });

  it('restarts a unit only after approval, and never claims it is healthy', async () => {
    const { service, call } = await setUp();
    const pending = await service.invoke(call('service.restart', { unit: 'payments-api.service' }));
    assert.equal(pending.status, 'pending');
    assert.equal(host.unit('payments-api.service')?.restarts ?? 0, 0, 'nothing restarted before approval');
    const approved = await service.approve(pending.status === 'pending' ? pending.approvalId : '', 'alice');
    assert.equal(approved.status, 'approved');
    const result = approved.status === 'approved' ? await service.performApproved(approved.approvalId) : undefined;
    assert.equal(result?.status, 'executed');
    assert.match(result?.status === 'executed' ? result.summary : '', /restart requested \(health not yet verified\)/);
    assert.equal(host.unit('payments-api.service')?.restarts, 1);
  });

  it('refuses a unit name that could widen the command, before anything runs', async () => {
    const { service, call } = await setUp();
    const before = host.calls().length;
    for (const unit of ['nginx.service;id', '--help.service', '../x.service']) {
      const result = await service.invoke(call('service.status', { unit }));
      assert.equal(result.status === 'failed' && result.code, 'invalid_params', unit);
    }
    assert.equal(host.calls().length, before);
  });

  it("restarts services, sockets, timers and paths only, and reads no slice's journal, before policy is asked", async () => {
    const { store, service, call } = await setUp();
    const before = host.calls().length;
    // A restart of a target powers off or isolates the host; of a slice or scope, stops all in it.
    for (const unit of ['poweroff.target', 'reboot.target', 'rescue.target', 'system.slice', 'session-1.scope', 'home.mount', 'dev-sda.device', 'swapfile.swap']) {
      const result = await service.invoke(call('service.restart', { unit }));
      assert.equal(result.status === 'failed' && result.code, 'invalid_params', unit);
      assert.match(result.status === 'failed' ? result.error : '', /is not one this takes/, unit);
    }
    // Nor a service whose start powers off, reboots, suspends or rescues the host.
    for (const unit of ['systemd-poweroff.service', 'systemd-reboot.service', 'systemd-halt.service', 'systemd-soft-reboot.service', 'systemd-suspend.service', 'emergency.service']) {
      const result = await service.invoke(call('service.restart', { unit }));
      assert.equal(result.status === 'failed' && result.code, 'invalid_params', unit);
      assert.match(result.status === 'failed' ? result.error : '', /changes the state of the whole host/, unit);
    }
    // journalctl --unit=system.slice reads every unit in the slice.
    for (const unit of ['system.slice', 'user-1000.slice']) {
      const result = await service.invoke(call('logs.query', { unit }));
      assert.equal(result.status === 'failed' && result.code, 'invalid_params', unit);
    }
    assert.equal(host.calls().length, before);
    assert.equal(await store.approvals.list({ status: ['pending'], limit: 10 }).then((a) => a.length), 0, 'nothing was put to an operator');
    // Status reads take every type, and a socket is restartable (it asks, as every restart does).
    const status = await service.invoke(call('service.status', { unit: 'multi-user.target' }));
    assert.notEqual(status.status === 'failed' && status.code, 'invalid_params');
    assert.equal((await service.invoke(call('service.restart', { unit: 'echo.socket' }))).status, 'pending');
  });

  it('masks logs, which policy asks about, and never prompts for them as a check', async () => {
    const { service, call } = await setUp();
    const check = await service.invoke(call('logs.query', { unit: 'payments-api.service' }, { allowPrompt: false }));
    assert.equal(check.status === 'denied' && check.code, 'not_observable');
    const pending = await service.invoke(call('logs.query', { unit: 'payments-api.service', lines: 50 }));
    const approved = await service.approve(pending.status === 'pending' ? pending.approvalId : '', 'alice');
    const result = approved.status === 'approved' ? await service.performApproved(approved.approvalId) : undefined;
    assert.equal(result?.status, 'executed');
    if (result?.status !== 'executed') return;
    const text = (result.observation.lines as string[]).join('\n');
    assert.match(text, /connection pool exhausted/);
    for (const secret of ['alice@example.com', '203.0.113.7', 'hunter2', 'sk_test_51Hq2abcdEFGH1234ijkl']) {
      assert.ok(!text.includes(secret), `${secret} should be masked`);
    }
    assert.equal(result.lowTrust, true);
  });

  it('reads memory, disk and processes from the kernel', async () => {
    const { service, call } = await setUp();
    const memory = await service.invoke(call('host.memory.status', {}));
    assert.equal(memory.status, 'executed');
    assert.ok(memory.status === 'executed' && (memory.observation.total_bytes as number) > 0);
    const disk = await service.invoke(call('host.disk.usage', { path: '/' }));
    assert.ok(disk.status === 'executed' && (disk.observation.total_bytes as number) > 0);
    const processes = await service.invoke(call('host.process.list', { sort: 'memory', limit: 5 }));
    assert.ok(processes.status === 'executed' && (processes.observation.processes as unknown[]).length > 0);
  });

  it('reads a web page only after approval, as low-trust content', async () => {
    const { service, call } = await setUp();
    const pending = await service.invoke(call('browser.read', { url: `${web.origin}/status` }));
    assert.equal(pending.status, 'pending');
    assert.equal(web.requests.length, 0);
    const approved = await service.approve(pending.status === 'pending' ? pending.approvalId : '', 'alice');
    const result = approved.status === 'approved' ? await service.performApproved(approved.approvalId) : undefined;
    assert.equal(result?.status, 'executed');
    if (result?.status !== 'executed') return;
    assert.match(String(result.observation.text), /All systems go/);
    assert.equal(result.lowTrust, true);
  });

  it('refuses private addresses through invoke even when policy allows the web', async () => {
    const { store, service, mind, call } = await setUp();
    await store.policyRules.set({ mindId: mind.id, capability: 'browser.*', targetPattern: '*', decision: 'allow', approvers: 1 });
    const result = await service.invoke(call('browser.navigate', { url: 'http://169.254.169.254/latest/meta-data/' }));
    assert.equal(result.status === 'failed' && result.code, 'forbidden_address');
  });
});

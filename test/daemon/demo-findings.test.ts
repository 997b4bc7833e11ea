// The demo's story (its own seeded host, policy and plan) played by an executor on a manual
// clock, on both stores: after the refuted restart and the replan, the diagnosis's summary
// surfaces the journal's `fatal: pool exhausted` line as a finding, the escalation note carries
// it, the mind believes it, and `praxis plan show` prints it. (test/daemon/demo.test.ts plays
// the same story as a real `praxis demo --auto` process, in real time.)

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { SimulatedHost } from '../../src/capabilities/host/simulated/host.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { seedHost, seedStory } from '../../src/daemon/demo.ts';
import { Executor } from '../../src/execution/executor.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { praxis, storeEnv } from './process.ts';

const FATAL = 'atlas-worker.service logged: fatal: pool exhausted for [email]';

for (const kind of STORE_KINDS) {
  describe(`the demo story's findings (${kind})`, () => {
    const current = useStore(kind);
    const hosts: SimulatedHost[] = [];
    after(() => hosts.forEach((h) => h.remove()));

    it('the diagnosis after the refuted restart finds the fatal journal line, and every surface shows it', { timeout: 120_000 }, async () => {
      const { store, clock, config } = current();
      const host = SimulatedHost.create();
      hosts.push(host);
      seedHost(host, clock.now());
      host.setClock(clock.now());
      const story = await seedStory(store);
      const registry = builtinRegistry();
      const service = new CapabilityService(store, registry, builtinImplementations({ runner: host.runner() }));
      const errors: string[] = [];
      const log = { debug() {}, warn() {}, error: (m: string, d?: unknown) => void errors.push(`${m} ${JSON.stringify(d ?? {})}`) };
      const executor = new Executor({ store, capabilities: service, registry, planning: { registry }, concurrency: 1, name: 'demo-findings', log });
      const advance = (seconds: number) => {
        clock.advance(seconds);
        host.setClock(clock.now());
      };

      // Approve and grant what the story asks, as `praxis demo --auto` does, until the note is left.
      let note: string | undefined;
      for (let i = 0; i < 40 && note === undefined; i += 1) {
        await executor.drain();
        for (const approval of await store.approvals.list({ mindId: story.mindId, status: 'pending' })) await service.approve(approval.id, 'demo-operator');
        for (const request of await store.capabilityRequests.list({ mindId: story.mindId, status: 'open' })) await service.grant(request.id, 'demo-operator', {});
        await executor.drain();
        const noted = (await store.events.list({ mindId: story.mindId, limit: 1000 })).find((e) => e.type === 'operator_note');
        note = noted ? String(noted.data.message) : undefined;
        advance(5);
      }
      assert.deepEqual(errors, []);
      assert.ok(note, 'the escalation note was left');
      assert.ok(note.includes(FATAL), `the note carries the finding: ${note}`);

      const plans = await store.plans.listByIntention(story.intentionId);
      assert.deepEqual(
        plans.map((p) => [p.revision, p.strategy, p.status]),
        [
          [1, 'direct', 'superseded'],
          [2, 'diagnose_then_escalate', 'completed'],
        ],
      );
      const first = (await store.events.list({ planId: plans[0]!.id, limit: 1000 })).find((e) => e.type === 'plan_aborted');
      assert.equal((first?.data.condition as { when?: string } | undefined)?.when, 'expectation_refuted', 'the restart plan stopped on its refuted expectation');

      const diagnosis = (await store.plans.get(plans[1]!.id))!;
      const s1 = diagnosis.steps.find((s) => s.key === 'S1')!;
      const observation = s1.observation as { summary: string; findings: { level: string; text: string }[] };
      assert.deepEqual(observation.findings[0], { step: 'L1', kind: 'log_line', level: 'fatal', text: FATAL, belief: 'atlas-worker.service logged "fatal: pool exhausted for [email]"' });
      assert.ok(observation.findings.some((f) => f.text === 'atlas-worker.service is failed'));
      assert.match(observation.summary, /^Found: atlas-worker\.service logged: fatal: pool exhausted for \[email\]/);
      assert.doesNotMatch(observation.summary, /bob@example\.com/, 'masked');

      const beliefs = await store.beliefs.listByMind(story.mindId);
      assert.ok(beliefs.some((b) => b.statement === 'atlas-worker.service logged "fatal: pool exhausted for [email]"' && b.confidence > 0.5));

      const shown = await praxis(['plan', 'show', diagnosis.id], storeEnv(config));
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /findings of S1:\n {2}fatal {4}atlas-worker\.service logged: fatal: pool exhausted for \[email\]\n/);
      assert.match(shown.stdout, /stops when: the note to the operator \(N1\) cannot be left\n/);
    });
  });
}

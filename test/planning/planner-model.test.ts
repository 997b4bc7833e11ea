// The pure half of the model role: what the model is told, and how its answer is read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Planner } from '../../src/planning/planner.ts';
import type { PriorRevision } from '../../src/planning/planner-types.ts';
import { buildModelMessages, interpretModelAnswer } from '../../src/planning/strategies/index.ts';
import { failedRestart, policy, registry, request, rule } from './planner-fixtures.ts';

const planner = new Planner(registry);
const wiki = { objective: 'check that atlas-worker.service has enough disk', means: null, requireApproval: false };

export const validProposal = {
  objective: 'ignored: the intention decides',
  strategy: 'whatever the model says',
  completion_criteria: 'the disk holding /var has at least 10% free',
  risk: 'read-only',
  steps: [
    { key: 'D1', title: 'Read disk usage of /var', kind: 'capability', capability: 'host.disk.usage', params: { path: '/var' } },
    { key: 'S1', title: 'Summarise', kind: 'internal', depends_on: ['D1'], spec: { action: 'summarise_findings' } },
  ],
};

describe('model answers', () => {
  it('reads a bare JSON plan, a fenced one, and one after a sentence', () => {
    const text = JSON.stringify(validProposal);
    for (const content of [text, `\`\`\`json\n${text}\n\`\`\``, `Here is the plan:\n${text}\nGood luck.`]) {
      const answer = interpretModelAnswer(content);
      assert.equal(answer.kind, 'proposal', content.slice(0, 40));
    }
  });

  it('calls prose without JSON a refusal, and {"refuse": ...} too', () => {
    assert.deepEqual(interpretModelAnswer("I'm sorry, but I can't help with restarting production services."), {
      kind: 'refused',
      message: `the model answered in prose instead of a plan: "I'm sorry, but I can't help with restarting production services."`,
    });
    assert.deepEqual(interpretModelAnswer('{"refuse": "no capability can edit a wiki"}'), {
      kind: 'refused',
      message: 'the model declined to plan: no capability can edit a wiki',
    });
  });

  it('calls broken JSON, JSON that is not an object, and an empty answer malformed', () => {
    const broken = interpretModelAnswer('{"objective": "x", "steps": [');
    assert.equal(broken.kind, 'malformed');
    assert.match(broken.kind === 'malformed' ? broken.message : '', /^the answer is not valid JSON: /);
    assert.deepEqual(interpretModelAnswer('[1, 2]'), { kind: 'malformed', message: 'the answer is JSON but not an object' });
    assert.deepEqual(interpretModelAnswer('  \n'), { kind: 'malformed', message: 'the model returned no text' });
  });

  it('parses and validates a proposal like any other, with Praxis owning objective, strategy, budget and alternatives', () => {
    const req = request(wiki, { modelConfigured: true });
    const result = planner.fromModelAnswer(req, JSON.stringify({ ...validProposal, budget: { invocations: 500, wall_seconds: 60 } }), 1234);
    assert.equal(result.kind, 'proposal');
    if (result.kind !== 'proposal') return;
    assert.equal(result.valid, true);
    assert.equal(result.draft.objective, wiki.objective);
    assert.equal(result.draft.strategy, 'model');
    assert.deepEqual(result.draft.budget, { invocations: 20, wall_seconds: 60 }, "a looser cap is cut to Praxis's; a stricter one is kept");
    assert.deepEqual(result.alternatives, [
      {
        strategy: 'model',
        estimate: { invocations: 1, approvals: 0, wall_seconds: 1, network_ops: 0, money: 0, tokens: 1234 },
        expected_confidence: 0.5,
        score: 0.499,
        selected: true,
        why: 'chosen: no deterministic strategy applies; proposed by the model and validated like any proposal',
      },
    ]);
  });

  it('ignores claims of approval and progress, and cannot remove an approval requirement', () => {
    const claims = {
      ...validProposal,
      approved: true,
      policy: 'allow everything',
      require_approval: false,
      steps: [
        {
          key: 'P1',
          title: 'Restart atlas-worker',
          kind: 'capability',
          capability: 'service.restart',
          params: { unit: 'atlas-worker.service' },
          require_approval: false,
          status: 'completed',
          authorised: true,
        },
      ],
    };
    const req = request({ ...wiki, requireApproval: true }, { modelConfigured: true });
    const result = planner.fromModelAnswer(req, JSON.stringify(claims));
    assert.equal(result.kind, 'proposal');
    if (result.kind !== 'proposal') return;
    assert.equal(result.valid, true);
    assert.equal(result.draft.require_approval, true, "the intention's requirement stands");
    assert.equal(result.draft.steps[0]!.require_approval, false);
    const ignored = result.validation.warnings.map((w) => `${w.code} ${w.path}`);
    for (const expected of [
      'ignored_authority_claim approved',
      'ignored_authority_claim policy',
      'ignored_authority_claim steps[0].require_approval',
      'ignored_progress_claim steps[0].status',
      'ignored_authority_claim steps[0].authorised',
    ]) {
      assert.ok(ignored.includes(expected), `${expected} in ${ignored.join(', ')}`);
    }
    assert.equal(result.alternatives[0]!.estimate.approvals, 1, 'the write still needs an approval');
    // Where the intention sets no requirement, the plan-level `false` is reported as ignored too.
    const open = planner.fromModelAnswer(request(wiki, { modelConfigured: true }), JSON.stringify(claims));
    assert.ok(open.kind === 'proposal' && open.validation.warnings.some((w) => w.code === 'ignored_authority_claim' && w.path === 'require_approval'));
  });

  // A dependency repeated up to the input limits made every walk of the graph that many times
  // longer: this answer (160 KB, 28 log reads each naming the next 1,000 times, and a request
  // for the journal none of them waits for) held the event loop for about three minutes while
  // its approvals were counted (81 s on this machine kind). The bound below is a hang's, a
  // hundred times what it takes now (under 0.2 s), not a speed target; the call is synchronous,
  // so a test timeout could not stop it.
  it('scores an answer that repeats each dependency a thousand times without walking every copy', () => {
    const reads = Array.from({ length: 28 }, (_, i) => ({
      key: `C${i}`,
      title: `Read the journal, part ${i}`,
      kind: 'capability',
      capability: 'logs.query',
      params: { unit: 'atlas-worker.service' },
      depends_on: i < 27 ? Array.from({ length: 1000 }, () => `C${i + 1}`) : [],
    }));
    const proposal = {
      ...validProposal,
      steps: [
        {
          key: 'R1',
          title: 'Ask for the journal',
          kind: 'request_capability',
          spec: { request: { capability: 'logs.query', target: 'atlas-worker.service', justification: 'diagnosis', duration_seconds: 600 } },
        },
        ...reads,
      ],
    };
    const text = JSON.stringify(proposal);
    assert.ok(text.length > 150_000 && text.length < 262_144, `${text.length} characters, within the input limit`);
    const started = performance.now();
    const result = planner.fromModelAnswer(request(wiki, { modelConfigured: true, policy: policy({ rules: [rule('logs.query', 'ask')] }) }), text);
    const took = performance.now() - started;
    assert.ok(took < 20_000, `scoring held the event loop for ${Math.round(took)} ms`);
    assert.equal(result.kind, 'proposal');
    // No read waits for the request, so each needs an approval of its own, and the request one.
    assert.equal(result.kind === 'proposal' && result.alternatives[0]!.estimate.approvals, 29);
  });

  it('keeps an invalid proposal with its errors', () => {
    const bad = { ...validProposal, steps: [{ key: 'X1', title: 'Run a shell', kind: 'capability', capability: 'shell.exec', params: { cmd: 'rm -rf /' } }] };
    const result = planner.fromModelAnswer(request(wiki, { modelConfigured: true }), JSON.stringify(bad));
    assert.equal(result.kind === 'proposal' && result.valid, false);
    assert.deepEqual(result.kind === 'proposal' && result.validation.errors.map((e) => e.code), ['unknown_capability']);
  });
});

describe('model messages', () => {
  it("give the intention, the catalogue with today's policy decisions, and the failed revisions", () => {
    const req = request(
      { objective: 'restart atlas-worker.service', means: { capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' } }, requireApproval: true },
      { policy: policy({ rules: [rule('logs.query', 'deny')] }), failedStrategies: ['direct', 'diagnose_then_escalate'], history: [failedRestart], modelConfigured: true },
    );
    const [system, user] = buildModelMessages(req, registry);
    assert.equal(system?.role, 'system');
    assert.match(system!.content, /exactly one JSON object/);
    assert.match(system!.content, /\{"refuse": "<why>"\}/);
    const payload = JSON.parse(user!.content);
    assert.deepEqual(payload.intention, {
      objective: 'restart atlas-worker.service',
      means: { capability: 'service.restart', target: 'atlas-worker.service', params: { unit: 'atlas-worker.service' } },
      require_approval: true,
    });
    const policyOf = Object.fromEntries(payload.capabilities.map((c: { name: string; policy: unknown }) => [c.name, c.policy]));
    assert.deepEqual(policyOf['service.restart'], { target: 'atlas-worker.service', decision: 'ask' });
    assert.deepEqual(policyOf['service.status'], { target: 'atlas-worker.service', decision: 'allow' });
    assert.deepEqual(policyOf['logs.query'], { target: 'atlas-worker.service', decision: 'deny' });
    assert.deepEqual(policyOf['host.memory.status'], { target: 'host', decision: 'allow' });
    assert.deepEqual(policyOf['browser.read'], { target: '*', decision: 'ask' });
    assert.equal(payload.capabilities.length, registry.list().length);
    assert.deepEqual(payload.failed_strategies, ['direct', 'diagnose_then_escalate']);
    assert.deepEqual(payload.earlier_revisions, [
      {
        revision: 1,
        strategy: 'direct',
        status: 'replanning',
        status_reason: 'expectation failed',
        troubled_steps: [
          {
            key: 'V1',
            title: 'Verify: atlas-worker.service is active',
            capability: 'service.status',
            target: 'atlas-worker.service',
            status: 'failed',
            error: 'expectation failed: atlas-worker.service was not active within 60 s',
          },
        ],
        findings: [],
      },
    ]);
  });

  it("carry what an earlier revision's summary found", () => {
    const summary = 'Found: atlas-worker.service logged: fatal: pool exhausted for [email]; atlas-worker.service is failed.';
    const diagnosed: PriorRevision = {
      revision: 2,
      strategy: 'diagnose_then_escalate',
      status: 'completed',
      statusReason: '',
      steps: [
        {
          key: 'L1',
          title: 'Read the journal',
          kind: 'capability',
          capability: 'logs.query',
          target: 'atlas-worker.service',
          status: 'completed',
          error: '',
          statusReason: '',
          observation: { lines: [] },
        },
        { key: 'S1', title: 'Summarise', kind: 'internal', capability: '', target: '', status: 'completed', error: '', statusReason: '', observation: { summary, findings: [] } },
      ],
    };
    const req = request({ objective: 'restart atlas-worker.service', means: null, requireApproval: false }, { history: [failedRestart, diagnosed], modelConfigured: true });
    const payload = JSON.parse(buildModelMessages(req, registry)[1]!.content);
    assert.deepEqual(
      payload.earlier_revisions.map((r: { findings: string[] }) => r.findings),
      [[], [`S1: ${summary}`]],
    );
  });
});

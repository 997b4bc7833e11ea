import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { decidePolicy, type PolicyQuestion, type ScopedGrant } from '../../src/capabilities/policy/decide.ts';
import { matchesTarget, patternSpecificity } from '../../src/capabilities/policy/target-pattern.ts';
import { checkParamLimits, outsideLimits } from '../../src/capabilities/policy/param-limits.ts';
import { actionDigest } from '../../src/capabilities/policy/action-digest.ts';
import { checkHttpUrl } from '../../src/capabilities/formats.ts';
import type { CapabilityDefinition } from '../../src/capabilities/definition.ts';
import type { JsonObject } from '../../src/core/plan.ts';

const registry = builtinRegistry();
const now = new Date('2026-12-02T12:00:00Z');

function ask(capability: string, params: JsonObject, extra: Partial<PolicyQuestion> = {}) {
  const definition = registry.get(capability)!;
  return decidePolicy({
    definition,
    target: registry.targetOf(capability, params),
    params,
    rules: [],
    commitments: [],
    grants: [],
    requireApproval: false,
    now,
    ...extra,
  });
}

const logsGrant = (over: Partial<ScopedGrant> = {}): ScopedGrant => ({
  id: 'g1',
  capability: 'logs.query',
  target_pattern: 'atlas-*.service',
  param_limits: { lines: { max: 200 } },
  expires_at: new Date(now.getTime() + 30 * 60_000),
  operations_left: 20,
  ...over,
});

describe('default policy', () => {
  it('allows bounded reads, asks for logs, web reads and restarts', () => {
    assert.equal(ask('service.status', { unit: 'nginx.service' }).decision, 'allow');
    assert.equal(ask('host.memory.status', {}).decision, 'allow');
    assert.equal(ask('host.disk.usage', { path: '/var' }).decision, 'allow');
    assert.equal(ask('host.process.list', {}).decision, 'allow');
    assert.equal(ask('logs.query', { unit: 'nginx.service' }).decision, 'ask');
    assert.equal(ask('browser.read', { url: 'https://example.com/' }).decision, 'ask');
    assert.equal(ask('service.restart', { unit: 'nginx.service' }).decision, 'ask');
    assert.equal(ask('service.restart', { unit: 'nginx.service' }).source, 'default');
  });
});

describe('rules', () => {
  it('lets the most specific rule win, capability first and then target', () => {
    const rules = [
      { capability: '*', target_pattern: '*', decision: 'deny' as const, approvers: 1 },
      { capability: 'service.restart', target_pattern: '*', decision: 'ask' as const, approvers: 1 },
      { capability: 'service.restart', target_pattern: 'atlas-*.service', decision: 'allow' as const, approvers: 1 },
      { capability: 'service.restart', target_pattern: 'atlas-db.service', decision: 'deny' as const, approvers: 1 },
    ];
    assert.equal(ask('service.restart', { unit: 'atlas-worker.service' }, { rules }).decision, 'allow');
    assert.equal(ask('service.restart', { unit: 'atlas-db.service' }, { rules }).decision, 'deny');
    assert.equal(ask('service.restart', { unit: 'nginx.service' }, { rules }).decision, 'ask');
    // The mind's catch-all deny outranks the built-in allow for status reads.
    const status = ask('service.status', { unit: 'nginx.service' }, { rules });
    assert.equal(status.decision, 'deny');
    assert.equal(status.source, 'rule');
  });

  it('between equally specific rules, the most restrictive wins, whatever order the store gave them in', () => {
    // `web-*.service` and `*prod.service` both match web-prod.service with the same specificity;
    // so do `a*.service` and `a?.service` for ab.service, which SQLite and an ICU PostgreSQL
    // database sort in opposite orders.
    const rule = (target_pattern: string, decision: 'allow' | 'ask' | 'deny', approvers = 1) => ({ capability: 'service.restart', target_pattern, decision, approvers });
    const cases = [
      { unit: 'web-prod.service', rules: [rule('web-*.service', 'allow'), rule('*prod.service', 'deny')], decision: 'deny', approvers: 1 },
      { unit: 'ab.service', rules: [rule('a*.service', 'allow'), rule('a?.service', 'deny')], decision: 'deny', approvers: 1 },
      { unit: 'web-prod.service', rules: [rule('web-*.service', 'allow'), rule('*prod.service', 'ask')], decision: 'ask', approvers: 1 },
      { unit: 'web-prod.service', rules: [rule('web-*.service', 'ask', 1), rule('*prod.service', 'ask', 2)], decision: 'ask', approvers: 2 },
    ];
    for (const c of cases) {
      for (const rules of [c.rules, [...c.rules].reverse()]) {
        const verdict = ask('service.restart', { unit: c.unit }, { rules });
        assert.deepEqual([verdict.decision, verdict.approvers], [c.decision, c.approvers], JSON.stringify(rules));
      }
    }
    // Equal in every respect but their spelling: the same rule is reported in both orders.
    const twins = [rule('web-*.service', 'ask'), rule('*prod.service', 'ask')];
    assert.equal(
      ask('service.restart', { unit: 'web-prod.service' }, { rules: twins }).rule?.target_pattern,
      ask('service.restart', { unit: 'web-prod.service' }, { rules: [...twins].reverse() }).rule?.target_pattern,
    );
  });

  it('a deny rule for a site cannot be passed by its name with a root dot (refused as a URL)', () => {
    const url = 'https://pastebin.com./x';
    assert.match(checkHttpUrl(url) ?? '', /ends in "\."/);
    assert.match(checkHttpUrl('https://PASTEBIN.COM./') ?? '', /ends in "\."/);
    assert.equal(checkHttpUrl('https://pastebin.com/x'), null);
  });

  it('carries a rule’s four-eyes requirement', () => {
    const rules = [{ capability: 'service.restart', target_pattern: '*', decision: 'ask' as const, approvers: 2 }];
    assert.equal(ask('service.restart', { unit: 'nginx.service' }, { rules }).approvers, 2);
  });

  it('always denies a locked capability, whatever the rules say', () => {
    const locked: CapabilityDefinition = { ...registry.get('service.status')!, locked: true, target: (p) => String(p.unit) };
    const verdict = decidePolicy({
      definition: locked,
      target: 'nginx.service',
      params: { unit: 'nginx.service' },
      rules: [{ capability: 'service.status', target_pattern: 'nginx.service', decision: 'allow', approvers: 1 }],
      commitments: [],
      grants: [],
      requireApproval: false,
      now,
    });
    assert.deepEqual([verdict.decision, verdict.source], ['deny', 'locked']);
  });
});

describe('commitments and explicit requirements', () => {
  const allowRestart = [{ capability: 'service.restart', target_pattern: '*', decision: 'allow' as const, approvers: 1 }];

  it('a commitment adds an approval requirement to an allowed action', () => {
    const commitments = [{ id: 'c1', capability: 'service.*', target_pattern: 'payments-*', reason: 'change freeze' }];
    const verdict = ask('service.restart', { unit: 'payments-api.service' }, { rules: allowRestart, commitments });
    assert.deepEqual([verdict.decision, verdict.source], ['ask', 'commitment']);
    assert.equal(ask('service.restart', { unit: 'nginx.service' }, { rules: allowRestart, commitments }).decision, 'allow');
  });

  it('a commitment never turns a deny into an ask', () => {
    const rules = [{ capability: 'service.restart', target_pattern: '*', decision: 'deny' as const, approvers: 1 }];
    const commitments = [{ id: 'c1', capability: '*', target_pattern: '*', reason: 'careful' }];
    assert.equal(ask('service.restart', { unit: 'nginx.service' }, { rules, commitments }).decision, 'deny');
  });

  it('requireApproval asks even where policy allows', () => {
    const verdict = ask('service.restart', { unit: 'nginx.service' }, { rules: allowRestart, requireApproval: true });
    assert.deepEqual([verdict.decision, verdict.source], ['ask', 'request']);
  });
});

describe('grants', () => {
  it('allow a call inside their scope that policy would ask about', () => {
    const verdict = ask('logs.query', { unit: 'atlas-worker.service', lines: 100 }, { grants: [logsGrant()] });
    assert.deepEqual([verdict.decision, verdict.source, verdict.grant?.id], ['allow', 'grant', 'g1']);
  });

  it('do not cover another target, parameters over their limits, expiry or exhaustion', () => {
    const outside = [
      ask('logs.query', { unit: 'nginx.service', lines: 100 }, { grants: [logsGrant()] }),
      ask('logs.query', { unit: 'atlas-worker.service', lines: 500 }, { grants: [logsGrant()] }),
      ask('logs.query', { unit: 'atlas-worker.service' }, { grants: [logsGrant()] }),
      ask('logs.query', { unit: 'atlas-worker.service', lines: 100 }, { grants: [logsGrant({ expires_at: now })] }),
      ask('logs.query', { unit: 'atlas-worker.service', lines: 100 }, { grants: [logsGrant({ operations_left: 0 })] }),
      ask('service.status', { unit: 'atlas-worker.service' }, { grants: [logsGrant()], rules: [{ capability: 'service.status', target_pattern: '*', decision: 'ask', approvers: 1 }] }),
    ];
    for (const verdict of outside) assert.equal(verdict.decision, 'ask');
  });

  it('never lift a commitment, an explicit requirement or a deny', () => {
    const grants = [logsGrant()];
    const params = { unit: 'atlas-worker.service', lines: 10 };
    assert.equal(ask('logs.query', params, { grants, commitments: [{ id: 'c', capability: 'logs.query', target_pattern: '*', reason: 'pii' }] }).decision, 'ask');
    assert.equal(ask('logs.query', params, { grants, requireApproval: true }).decision, 'ask');
    assert.equal(ask('logs.query', params, { grants, rules: [{ capability: 'logs.query', target_pattern: '*', decision: 'deny', approvers: 1 }] }).decision, 'deny');
  });
});

describe('target patterns', () => {
  it('match whole targets with * and ?', () => {
    const cases: [string, string, boolean][] = [
      ['*', 'anything', true],
      ['nginx.service', 'nginx.service', true],
      ['nginx.service', 'nginx.service2', false],
      ['atlas-*.service', 'atlas-worker.service', true],
      ['atlas-*.service', 'atlas-.service', true],
      ['atlas-*.service', 'xatlas-worker.service', false],
      ['*.example.com', 'www.example.com', true],
      ['*.example.com', 'example.com', false],
      ['getty@tty?.service', 'getty@tty1.service', true],
      ['getty@tty?.service', 'getty@tty12.service', false],
      ['a*b*c', 'aXXbYYc', true],
      ['a*b*c', 'aXXbYY', false],
    ];
    for (const [pattern, target, expected] of cases) assert.equal(matchesTarget(pattern, target), expected, `${pattern} ~ ${target}`);
  });

  it('rank exact targets above patterns and longer literals above shorter', () => {
    assert.ok(patternSpecificity('nginx.service') > patternSpecificity('nginx.*'));
    assert.ok(patternSpecificity('nginx.*') > patternSpecificity('n*'));
    assert.ok(patternSpecificity('n*') > patternSpecificity('*'));
  });
});

describe('parameter limits', () => {
  it('are checked for shape against the capability’s parameters', () => {
    const problems = checkParamLimits({ lines: { max: 'ten' }, colour: { equals: 1 }, unit: {} }, ['unit', 'lines'], 'param_limits');
    assert.deepEqual(problems.map((p) => p.path).sort(), ['param_limits.colour', 'param_limits.lines.max', 'param_limits.unit']);
  });

  it('bind values, sets, ranges and patterns', () => {
    assert.equal(outsideLimits({ priority: { one_of: ['err', 'warning'] } }, { priority: 'err' }), null);
    assert.match(outsideLimits({ priority: { one_of: ['err'] } }, { priority: 'debug' }) ?? '', /priority/);
    assert.match(outsideLimits({ unit: { pattern: 'atlas-*' } }, { unit: 'nginx.service' }) ?? '', /unit/);
    assert.match(outsideLimits({ lines: { min: 5 } }, { lines: 1 }) ?? '', /lines/);
    assert.equal(outsideLimits({ unit: { equals: 'a.service' } }, { unit: 'a.service' }), null);
  });
});

describe('action digest', () => {
  it('is stable under key order and changes with any part of the action', () => {
    const base = actionDigest({ capability: 'service.restart', target: 'a.service', params: { unit: 'a.service', x: { b: 1, a: 2 } } });
    assert.equal(base, actionDigest({ capability: 'service.restart', target: 'a.service', params: { x: { a: 2, b: 1 }, unit: 'a.service' } }));
    assert.notEqual(base, actionDigest({ capability: 'service.status', target: 'a.service', params: { unit: 'a.service', x: { b: 1, a: 2 } } }));
    assert.notEqual(base, actionDigest({ capability: 'service.restart', target: 'b.service', params: { unit: 'a.service', x: { b: 1, a: 2 } } }));
    assert.notEqual(base, actionDigest({ capability: 'service.restart', target: 'a.service', params: { unit: 'a.service', x: { b: 1, a: 3 } } }));
  });
});

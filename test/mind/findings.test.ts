// What a summary takes from each read capability's answer (pure): the facts that matter, in
// words, bounded, most severe first; a read that failed or never ran is a finding too.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonValue } from '../../src/core/plan.ts';
import { findingsOf, journalMessage, logLevel, MAX_LOG_FINDINGS, MAX_SUMMARY, summaryOf, type ObservedStep } from '../../src/mind/findings.ts';

const UNIT = 'atlas-worker.service';

function observed(key: string, capability: string, observation: JsonValue | null, over: Partial<ObservedStep> = {}): ObservedStep {
  return { key, title: `read ${key}`, kind: 'capability', capability, target: UNIT, status: 'completed', error: '', statusReason: '', observation, ...over };
}

const line = (message: string) => `2026-12-03T15:00:00+0000 simhost atlas-worker[4242]: ${message}`;

describe('findings', () => {
  it('journal lines: error and fatal ones with their text, fatal first, info lines left out, bounded', () => {
    assert.equal(journalMessage(line('fatal: pool exhausted for [email]')), 'fatal: pool exhausted for [email]');
    assert.equal(journalMessage('no prefix here'), 'no prefix here');
    assert.equal(logLevel('fatal: pool exhausted'), 'fatal');
    assert.equal(logLevel('db connect refused'), 'error');
    assert.equal(logLevel('job 4411 retried'), null);

    const found = findingsOf(
      observed('L1', 'logs.query', { unit: UNIT, lines: [line('starting'), line('db connect refused'), line('fatal: pool exhausted for [email]')], truncated: false, masked: true }),
    );
    assert.deepEqual(
      found.map((f) => [f.level, f.text]),
      [
        ['fatal', `${UNIT} logged: fatal: pool exhausted for [email]`],
        ['error', `${UNIT} logged: db connect refused`],
      ],
    );
    assert.equal(found[0]!.belief, `${UNIT} logged "fatal: pool exhausted for [email]"`);

    const flood = findingsOf(observed('L1', 'logs.query', { unit: UNIT, lines: Array.from({ length: 50 }, (_, i) => line(`error ${i} ${'x'.repeat(400)}`)), truncated: false, masked: true }));
    assert.equal(flood.length, MAX_LOG_FINDINGS + 1);
    assert.ok(flood.every((f) => f.text.length <= 300));
    assert.equal(flood.at(-1)!.text, `${50 - MAX_LOG_FINDINGS} more error or fatal messages of ${UNIT} not listed`);
    assert.match(flood[0]!.text, /error 49 /, 'newest first');

    assert.deepEqual(
      findingsOf(observed('L1', 'logs.query', { unit: UNIT, lines: [line('ok')], truncated: false, masked: true })).map((f) => f.level),
      ['info'],
    );
    // A message repeated is one finding that says how often.
    const repeated = findingsOf(
      observed('L1', 'logs.query', { unit: UNIT, lines: [line('fatal: pool exhausted'), line('ok'), line('fatal: pool exhausted'), line('fatal: pool exhausted')], truncated: false, masked: true }),
    );
    assert.deepEqual(
      repeated.map((f) => f.text),
      [`${UNIT} logged 3 times: fatal: pool exhausted`],
    );
    assert.equal(repeated[0]!.belief, `${UNIT} logged "fatal: pool exhausted"`);
  });

  it('a unit state, disk and memory thresholds, and HTTP statuses', () => {
    const unit = findingsOf(observed('U1', 'service.status', { unit: UNIT, load_state: 'loaded', active_state: 'failed', sub_state: 'failed', since: null, main_pid: null }));
    assert.deepEqual(
      unit.map((f) => [f.level, f.text, f.belief]),
      [['error', `${UNIT} is failed`, `${UNIT} is failed`]],
    );
    const healthy = findingsOf(observed('U1', 'service.status', { unit: UNIT, load_state: 'loaded', active_state: 'active', sub_state: 'running' }));
    assert.deepEqual(
      healthy.map((f) => [f.level, f.text, f.belief]),
      [['info', `${UNIT} is active (running)`, undefined]],
    );

    const disk = findingsOf(
      observed('D1', 'host.disk.usage', {
        path: '/',
        used_percent: 95,
        filesystems: [
          { mount: '/', used_percent: 95.04 },
          { mount: '/boot', used_percent: 20 },
        ],
      }),
    );
    assert.deepEqual(
      disk.map((f) => [f.level, f.text]),
      [['error', 'filesystem / is 95% full (threshold 90%)']],
    );
    assert.deepEqual(
      findingsOf(observed('D1', 'host.disk.usage', { path: '/', used_percent: 40, filesystems: [{ mount: '/', used_percent: 40 }] })).map((f) => f.level),
      ['info'],
    );

    assert.deepEqual(
      findingsOf(observed('M1', 'host.memory.status', { used_percent: 97.26 })).map((f) => [f.level, f.text]),
      [['error', 'host memory 97.3% used (threshold 90%)']],
    );
    assert.deepEqual(
      findingsOf(observed('M1', 'host.memory.status', { used_percent: 30 })).map((f) => f.level),
      ['info'],
    );

    const page = findingsOf(observed('W1', 'browser.navigate', { url: 'https://example.org/', final_url: 'https://example.org/', status: 200, title: 'Example', content_type: 'text/html' }));
    assert.deepEqual(
      page.map((f) => [f.level, f.text]),
      [['info', 'https://example.org/ answered HTTP 200']],
    );
    const refused = findingsOf(observed('W1', 'browser.read', null, { status: 'failed', target: 'https://example.org/', error: 'https://example.org/ answered with status 503' }));
    assert.deepEqual(
      refused.map((f) => [f.kind, f.level, f.text]),
      [['http_status', 'error', 'https://example.org/ answered HTTP 503']],
    );
  });

  it('failed and unread observations are findings; the summary orders by severity and stays bounded', () => {
    const steps = [
      observed('U1', 'service.status', { unit: UNIT, load_state: 'loaded', active_state: 'active', sub_state: 'running' }),
      observed('D1', 'host.disk.usage', null, { status: 'failed', error: 'statfs failed' }),
      observed('L1', 'logs.query', null, { status: 'cancelled', statusReason: 'dependency R1 failed' }),
      observed('R1', '', null, { kind: 'request_capability', status: 'failed', error: 'the request was denied' }),
    ];
    const { summary, findings } = summaryOf(steps);
    assert.deepEqual(
      findings.map((f) => [f.step, f.level]),
      [
        ['D1', 'failed'],
        ['L1', 'failed'],
        ['R1', 'failed'],
        ['U1', 'info'],
      ],
    );
    assert.equal(
      summary,
      `Also seen: ${UNIT} is active (running). Not observed: D1 (read D1) failed: statfs failed; L1 (read L1) was not read: dependency R1 failed; R1 (read R1) failed: the request was denied.`,
    );
    const skipped = findingsOf(observed('U2', 'service.status', null, { status: 'skipped', statusReason: 'the precondition did not hold' }));
    assert.deepEqual(
      skipped.map((f) => [f.level, f.text]),
      [['info', 'U2 (read U2) was not read: the precondition did not hold']],
    );
    const long = summaryOf(Array.from({ length: 30 }, (_, i) => observed(`D${i}`, 'host.disk.usage', null, { status: 'failed', error: 'e'.repeat(280) })));
    assert.ok(long.summary.length <= MAX_SUMMARY);
    assert.equal(summaryOf([]).summary, 'no findings');
  });
});

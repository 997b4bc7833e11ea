import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Expectation } from '../../src/core/plan.ts';
import { newId } from '../../src/core/ids.ts';
import { calibrate, calibrationOf } from '../../src/mind/calibration.ts';
import { expireOverduePredictions, judgeObservation, makePrediction, resolvePrediction } from '../../src/mind/predictions.ts';
import { formBelief, revisedConfidence } from '../../src/mind/beliefs.ts';
import type { Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const atlasActive: Expectation = {
  statement: 'atlas-worker.service is active',
  confidence: 0.8,
  within_seconds: 60,
  check: { capability: 'service.status', params: { unit: 'atlas-worker.service' }, field: 'active_state', comparison: 'equals', value: 'active' },
};

async function setting(store: Store, beliefConfidence: number) {
  const mind = await store.minds.create({ name: `ops-${newId()}` });
  const formed = await formBelief(store, { mindId: mind.id, statement: 'atlas-worker recovers from a restart', confidence: beliefConfidence });
  const belief = formed.ok ? formed.belief : assert.fail('belief not formed');
  const intention = await store.intentions.create({ mindId: mind.id, objective: 'restart atlas-worker.service', origin: 'operator', beliefId: belief.id });
  return { mind, belief, intention };
}

describe('the belief rule', () => {
  it('moves confidence by the evidence weight, within [0, 1]', () => {
    assert.equal(revisedConfidence(0.9, 'against', 0.8), 0.54);
    assert.equal(revisedConfidence(0.6, 'for', 0.8), 0.76);
    assert.equal(revisedConfidence(0.5, 'against', 0), 0.5);
    assert.equal(revisedConfidence(1, 'for', 1), 1);
    assert.equal(revisedConfidence(0, 'against', 1), 0);
    assert.equal(revisedConfidence(0.9, 'against', 1), 0.45, 'a certain miss halves the confidence');
    assert.ok(revisedConfidence(0.9, 'against', 0.9) < revisedConfidence(0.9, 'against', 0.3), 'a more confident miss costs more');
  });
});

describe('judging an observation', () => {
  const prediction = { windowClosesAt: new Date('2026-01-01T00:01:00Z') };
  const inside = new Date('2026-01-01T00:00:30Z');
  const after = new Date('2026-01-01T00:01:01Z');
  it('confirms inside the window, refutes when the window closed without the check holding', () => {
    assert.equal(judgeObservation(prediction, { kind: 'held', observed: { active_state: 'active' } }, inside).status, 'confirmed');
    assert.equal(judgeObservation(prediction, { kind: 'not_held' }, inside).status, 'wait');
    assert.equal(judgeObservation(prediction, { kind: 'not_held', observed: { active_state: 'failed' } }, after).status, 'refuted');
  });
  it('expires, never refutes, when nothing could be observed', () => {
    assert.equal(judgeObservation(prediction, { kind: 'unobservable', why: 'policy would ask', lasting: true }, inside).status, 'expired');
    assert.equal(judgeObservation(prediction, { kind: 'unobservable', why: 'timeout', lasting: false }, inside).status, 'wait');
    assert.equal(judgeObservation(prediction, { kind: 'unobservable', why: 'timeout', lasting: false }, after).status, 'expired');
    assert.equal(judgeObservation(prediction, { kind: 'held' }, after).status, 'expired', 'a late hold says nothing about the window');
  });
});

describe('calibration by hand', () => {
  it('buckets resolved predictions and computes the Brier score, leaving expired and open ones out', () => {
    const result = calibrate([
      { confidence: 0.8, status: 'confirmed' },
      { confidence: 0.8, status: 'refuted' },
      { confidence: 0.6, status: 'confirmed' },
      { confidence: 0.9, status: 'confirmed' },
      { confidence: 0.7, status: 'expired' },
      { confidence: 0.5, status: 'open' },
    ]);
    // ((0.8 − 1)² + (0.8 − 0)² + (0.6 − 1)² + (0.9 − 1)²) / 4 = (0.04 + 0.64 + 0.16 + 0.01) / 4
    assert.equal(result.brier, 0.2125);
    assert.deepEqual(
      { resolved: result.resolved, confirmed: result.confirmed, refuted: result.refuted, expired: result.expired, open: result.open },
      { resolved: 4, confirmed: 3, refuted: 1, expired: 1, open: 1 },
    );
    assert.equal(result.buckets.length, 10);
    assert.deepEqual(result.buckets[6], { lower: 0.6, upper: 0.7, count: 1, meanConfidence: 0.6, observedRate: 1 });
    assert.deepEqual(result.buckets[7], { lower: 0.7, upper: 0.8, count: 0, meanConfidence: null, observedRate: null });
    assert.deepEqual(result.buckets[8], { lower: 0.8, upper: 0.9, count: 2, meanConfidence: 0.8, observedRate: 0.5 });
    assert.deepEqual(result.buckets[9], { lower: 0.9, upper: 1, count: 1, meanConfidence: 0.9, observedRate: 1 });
    assert.equal(calibrate([{ confidence: 1, status: 'confirmed' }]).buckets[9]!.count, 1, 'confidence 1 falls in the last bucket');
    assert.equal(calibrate([{ confidence: 0.7, status: 'expired' }]).brier, null);
  });
});

for (const kind of STORE_KINDS) {
  describe(`predictions and beliefs (${kind})`, () => {
    const current = useStore(kind);

    it("makes a prediction from a step's expectation, with its window and links", async () => {
      const { store, clock } = current();
      const { mind, belief, intention } = await setting(store, 0.9);
      const links = { mindId: mind.id, intentionId: intention.id, beliefId: belief.id, executionId: newId(), eventId: newId() };
      const prediction = await makePrediction(store, links, atlasActive);
      assert.equal(prediction.statement, 'atlas-worker.service is active');
      assert.equal(prediction.confidence, 0.8);
      assert.equal(prediction.status, 'open');
      assert.deepEqual(prediction.windowOpensAt, clock.now());
      assert.deepEqual(prediction.windowClosesAt, new Date(clock.now().getTime() + 60_000));
      assert.deepEqual(prediction.verification, { check: atlasActive.check, within_seconds: 60 });
      assert.equal(prediction.executionId, links.executionId);
      assert.equal(prediction.eventId, links.eventId);
      assert.equal(prediction.beliefId, belief.id);
      const [made] = await store.events.list({ intentionId: intention.id });
      assert.equal(made?.type, 'prediction_made');
      assert.equal(made?.data.prediction_id, prediction.id);
    });

    it('a refutation records a prediction error, adds evidence against the belief and lowers it by the rule', async () => {
      const { store, clock } = current();
      const { mind, belief, intention } = await setting(store, 0.9);
      const prediction = await makePrediction(store, { mindId: mind.id, intentionId: intention.id, beliefId: belief.id }, atlasActive);
      clock.advance(61);
      const result = await resolvePrediction(store, prediction.id, { status: 'refuted', observed: { active_state: 'failed' }, note: 'not active within 60 s' });
      assert.equal(result.resolved, true);
      if (!result.resolved) return;
      assert.equal(result.prediction.status, 'refuted');
      assert.deepEqual(result.prediction.outcome, { note: 'not active within 60 s', observed: { active_state: 'failed' } });
      assert.deepEqual(result.prediction.resolvedAt, clock.now());
      // 0.9 × (1 − 0.5 × 0.8)
      assert.equal(result.belief?.confidence, 0.54);
      const stored = await store.beliefs.get(belief.id);
      assert.equal(stored?.confidence, 0.54);
      assert.equal(stored?.version, 1);
      assert.deepEqual(stored?.evidence, [
        {
          direction: 'against',
          weight: 0.8,
          source: `prediction:${prediction.id}`,
          note: 'refuted: atlas-worker.service is active',
          confidence_before: 0.9,
          confidence_after: 0.54,
          at: clock.now().toISOString(),
        },
      ]);
      const types = (await store.events.list({ mindId: mind.id })).map((e) => e.type);
      assert.deepEqual(types, ['prediction_made', 'prediction_resolved', 'prediction_error', 'belief_updated']);
      const error = (await store.events.list({ mindId: mind.id })).find((e) => e.type === 'prediction_error');
      assert.deepEqual(error?.data.observed, { active_state: 'failed' });
      const updated = (await store.events.list({ mindId: mind.id })).find((e) => e.type === 'belief_updated');
      assert.deepEqual(updated?.data, { belief_id: belief.id, direction: 'against', weight: 0.8, source: `prediction:${prediction.id}`, from: 0.9, to: 0.54 });
    });

    it('a confirmation inside the window adds evidence for the belief', async () => {
      const { store, clock } = current();
      const { mind, belief } = await setting(store, 0.6);
      const prediction = await makePrediction(store, { mindId: mind.id, beliefId: belief.id }, atlasActive);
      clock.advance(20);
      const result = await resolvePrediction(store, prediction.id, { status: 'confirmed', observed: { active_state: 'active' } });
      assert.equal(result.resolved && result.belief?.confidence, 0.76);
      const again = await resolvePrediction(store, prediction.id, { status: 'refuted' });
      assert.deepEqual(again.resolved ? '' : again.reason, 'already_resolved', 'a prediction resolves once');
      assert.equal((await store.beliefs.get(belief.id))?.confidence, 0.76);
    });

    it('refuses a confirmation that comes after the window closed', async () => {
      const { store, clock } = current();
      const { mind, belief } = await setting(store, 0.6);
      const prediction = await makePrediction(store, { mindId: mind.id, beliefId: belief.id }, atlasActive);
      clock.advance(61);
      const late = await resolvePrediction(store, prediction.id, { status: 'confirmed' });
      assert.deepEqual(late.resolved ? '' : late.reason, 'window_closed');
      assert.equal((await store.predictions.get(prediction.id))?.status, 'open');
      assert.equal((await store.beliefs.get(belief.id))?.confidence, 0.6);
    });

    it('takes a confirmation observed inside the window though it is resolved after the window closed, and none observed after it', async () => {
      const { store, clock } = current();
      const { mind, belief } = await setting(store, 0.6);
      const prediction = await makePrediction(store, { mindId: mind.id, beliefId: belief.id }, atlasActive);
      clock.advance(59.5);
      const observedAt = clock.now();
      clock.advance(1); // the observation's own time, then a commit: the window has closed meanwhile
      const late = await resolvePrediction(store, prediction.id, { status: 'confirmed', observedAt: new Date(observedAt.getTime() + 2_000) });
      assert.deepEqual(late.resolved ? '' : late.reason, 'window_closed', 'an observation after the window does not confirm');
      const result = await resolvePrediction(store, prediction.id, { status: 'confirmed', observed: { active_state: 'active' }, observedAt });
      assert.equal(result.resolved, true);
      assert.equal((await store.predictions.get(prediction.id))?.status, 'confirmed');
      assert.equal((await store.beliefs.get(belief.id))?.confidence, 0.76);
    });

    it('expired is not refuted: the belief stays, no prediction error, and calibration ignores it', async () => {
      const { store, clock } = current();
      const { mind, belief } = await setting(store, 0.9);
      const overdue = await makePrediction(store, { mindId: mind.id, beliefId: belief.id }, atlasActive);
      const later = await makePrediction(store, { mindId: mind.id, beliefId: belief.id }, { ...atlasActive, within_seconds: 600 });
      clock.advance(120);
      const expired = await expireOverduePredictions(store);
      assert.deepEqual(
        expired.map((p) => p.id).filter((id) => id === overdue.id || id === later.id),
        [overdue.id],
      );
      const stored = await store.predictions.get(overdue.id);
      assert.equal(stored?.status, 'expired');
      assert.deepEqual(stored?.outcome, { note: 'the window closed with no observation', observed: null });
      assert.equal((await store.beliefs.get(belief.id))?.confidence, 0.9);
      const types = (await store.events.list({ mindId: mind.id })).map((e) => e.type);
      assert.ok(!types.includes('prediction_error') && !types.includes('belief_updated'), types.join(', '));
      const calibration = await calibrationOf(store, mind.id);
      assert.deepEqual([calibration.resolved, calibration.expired, calibration.open, calibration.brier], [0, 1, 1, null]);
    });

    it("keeps a mind's calibration from its resolved predictions", async () => {
      const { store } = current();
      const { mind } = await setting(store, 0.5);
      const outcomes: [number, 'confirmed' | 'refuted' | 'expired'][] = [
        [0.8, 'confirmed'],
        [0.8, 'refuted'],
        [0.6, 'confirmed'],
        [0.9, 'confirmed'],
        [0.7, 'expired'],
      ];
      for (const [confidence, status] of outcomes) {
        const p = await makePrediction(store, { mindId: mind.id }, { ...atlasActive, confidence });
        assert.equal((await resolvePrediction(store, p.id, { status })).resolved, true);
      }
      const calibration = await calibrationOf(store, mind.id);
      assert.equal(calibration.brier, 0.2125);
      assert.equal(calibration.buckets[8]!.observedRate, 0.5);
      assert.equal(calibration.expired, 1);
    });

    it('revises a belief only at the version it read', async () => {
      const { store } = current();
      const { belief } = await setting(store, 0.5);
      const first = await store.beliefs.revise(belief.id, 0, { confidence: 0.6, evidence: [] });
      assert.equal(first?.version, 1);
      assert.equal(await store.beliefs.revise(belief.id, 0, { confidence: 0.1, evidence: [] }), undefined, 'a stale revision changes nothing');
      assert.equal((await store.beliefs.get(belief.id))?.confidence, 0.6);
    });
  });
}

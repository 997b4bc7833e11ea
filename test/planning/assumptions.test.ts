// Assumptions: shape at validation, and against the mind's beliefs (held, and firmly enough) at
// assessment, on both stores.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { newId } from '../../src/core/ids.ts';
import { heldBeliefs } from '../../src/mind/beliefs.ts';
import { assessProposal } from '../../src/planning/assess.ts';
import { assumedBeliefIds, checkAssumptions } from '../../src/planning/assumptions.ts';
import { validate } from '../../src/planning/validate.ts';
import type { PlanDraft } from '../../src/core/plan.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

const registry = builtinRegistry();
const restart = JSON.parse(readFileSync(new URL('../../examples/restart-atlas-worker.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const withAssumptions = (assumptions: unknown[]) => ({ ...restart, assumptions });
const codes = (issues: { code: string; path: string }[]) => issues.map((i) => `${i.code} ${i.path}`);

describe('assumptions: shape', () => {
  it('refuses a minimum confidence outside 0..1 at its path, and accepts the bounds', () => {
    const result = validate(
      withAssumptions([
        { statement: 's', min_confidence: 7 },
        { statement: 't', min_confidence: -0.1 },
      ]) as unknown as PlanDraft,
      registry,
    );
    assert.deepEqual(codes(result.errors), ['invalid_min_confidence assumptions[0].min_confidence', 'invalid_min_confidence assumptions[1].min_confidence']);
    assert.equal(
      validate(
        withAssumptions([
          { statement: 's', min_confidence: 0 },
          { statement: 't', min_confidence: 1 },
        ]) as unknown as PlanDraft,
        registry,
      ).valid,
      true,
    );
  });

  it('names the beliefs to read, once each', () => {
    const a = newId();
    assert.deepEqual(assumedBeliefIds(withAssumptions([{ statement: 's', belief_id: a, min_confidence: 0.5 }, { statement: 't', belief_id: a, min_confidence: 0.2 }, 'u'])), [a]);
  });
});

describe('assumptions against beliefs', () => {
  const held = new Map([['b1', { id: 'b1', statement: 'atlas-worker recovers from a restart', confidence: 0.4 }]]);

  it('reports a belief the mind does not hold and one held below the minimum; passes one held firmly enough', () => {
    const draft = withAssumptions([
      { statement: 'x', belief_id: 'b1', min_confidence: 0.5 },
      { statement: 'y', belief_id: 'nope', min_confidence: 0.1 },
      { statement: 'z', belief_id: 'b1', min_confidence: 0.4 },
      { statement: 'a premise no belief backs', min_confidence: 0.9 },
    ]);
    const issues = checkAssumptions(draft, held);
    assert.deepEqual(codes(issues), ['assumption_below_confidence assumptions[0].min_confidence', 'assumption_belief_missing assumptions[1].belief_id']);
    assert.match(issues[0]!.message, /confidence 0\.5 or more; the mind holds it with 0\.4/);
  });

  it('the issue that min_confidence 7 on a belief that does not exist validates: both are errors now', () => {
    const assessed = assessProposal(withAssumptions([{ statement: 'x', belief_id: newId(), min_confidence: 7 }]), registry, { beliefs: new Map() });
    assert.equal(assessed.valid, false);
    assert.deepEqual(codes(assessed.errors), ['invalid_min_confidence assumptions[0].min_confidence', 'assumption_belief_missing assumptions[0].belief_id']);
  });
});

for (const kind of STORE_KINDS) {
  describe(`assumptions checked against a mind's beliefs (${kind})`, () => {
    const current = useStore(kind);

    it("reads only the mind's own beliefs: another mind's belief, or an id that is none, is not held", async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `assume-${newId().slice(-8)}` });
      const other = await store.minds.create({ name: `other-${newId().slice(-8)}` });
      const firm = await store.beliefs.create({ mindId: mind.id, statement: 'atlas-worker recovers from a restart', confidence: 0.8 });
      const weak = await store.beliefs.create({ mindId: mind.id, statement: 'the disk has room', confidence: 0.3 });
      const foreign = await store.beliefs.create({ mindId: other.id, statement: 'elsewhere', confidence: 0.9 });
      const draft = withAssumptions([
        { statement: firm.statement, belief_id: firm.id, min_confidence: 0.5 },
        { statement: weak.statement, belief_id: weak.id, min_confidence: 0.5 },
        { statement: foreign.statement, belief_id: foreign.id, min_confidence: 0.5 },
        { statement: 'typo', belief_id: 'not-an-id', min_confidence: 0.5 },
      ]);
      const beliefs = await heldBeliefs(store, mind.id, assumedBeliefIds(draft));
      assert.deepEqual([...beliefs.keys()].sort(), [firm.id, weak.id].sort());
      const assessed = assessProposal(draft, registry, { beliefs });
      assert.deepEqual(codes(assessed.errors), [
        'assumption_below_confidence assumptions[1].min_confidence',
        'assumption_belief_missing assumptions[2].belief_id',
        'assumption_belief_missing assumptions[3].belief_id',
      ]);
    });
  });
}

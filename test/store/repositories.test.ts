import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { EventType } from '../../src/core/vocabulary.ts';
import { seedPlan } from '../support/fixtures.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`minds repository (${kind})`, () => {
    const current = useStore(kind);

    it('creates, finds and lists minds', async () => {
      const { store, clock } = current();
      const name = `ops-${newId()}`;
      const mind = await store.minds.create({ name, host: 'web-1', sandbox: true });
      assert.deepEqual(mind, {
        id: mind.id,
        name,
        status: 'active',
        sandbox: true,
        host: 'web-1',
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      const plain = await store.minds.create({ name: `${name}-b` });
      assert.equal(plain.sandbox, false);
      assert.equal(plain.host, null);
      assert.deepEqual(await store.minds.get(mind.id), mind);
      assert.deepEqual(await store.minds.getByName(name), mind);
      assert.equal(await store.minds.getByName('nobody'), undefined);
      const names = (await store.minds.list()).map((m) => m.name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.includes(name) && names.includes(`${name}-b`));
    });

    it('refuses a second mind with the same name', async () => {
      const { store } = current();
      const name = `dup-${newId()}`;
      await store.minds.create({ name });
      await assert.rejects(store.minds.create({ name }), /unique/i);
    });

    it('disables and re-enables a mind', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      clock.advance(2);
      const disabled = await store.minds.setStatus(mind.id, 'disabled');
      assert.equal(disabled?.status, 'disabled');
      assert.deepEqual(disabled?.updatedAt, clock.now());
      assert.equal((await store.minds.setStatus(mind.id, 'active'))?.status, 'active');
      assert.equal(await store.minds.setStatus(newId(), 'disabled'), undefined);
    });
  });

  describe(`intentions repository (${kind})`, () => {
    const current = useStore(kind);

    it('creates an intention with its means and a subordinate one', async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      const means = { capability: 'service.restart', target: 'nginx.service', params: { unit: 'nginx.service' } };
      const parent = await store.intentions.create({
        mindId: mind.id,
        objective: 'nginx serves pages',
        means,
        origin: 'cli',
        requireApproval: true,
      });
      assert.deepEqual(parent, {
        id: parent.id,
        mindId: mind.id,
        parentId: null,
        objective: 'nginx serves pages',
        means,
        beliefId: null,
        origin: 'cli',
        authoredBy: '',
        status: 'active',
        reason: '',
        requireApproval: true,
        createdAt: clock.now(),
        updatedAt: clock.now(),
        closedAt: null,
      });
      const child = await store.intentions.create({
        mindId: mind.id,
        parentId: parent.id,
        objective: 'get approval',
        origin: `plan_step:${newId()}`,
      });
      assert.equal(child.parentId, parent.id);
      assert.equal(child.means, null);
      assert.equal(child.requireApproval, false);
      assert.deepEqual(await store.intentions.get(child.id), child);
      await assert.rejects(store.intentions.create({ mindId: mind.id, parentId: newId(), objective: 'x', origin: 'cli' }), /foreign key/i);
    });

    it('moves an intention conditionally and stamps closed_at on closing', async () => {
      const { store, clock } = current();
      const { intention } = await seedPlan(store);
      assert.equal(await store.intentions.transition(intention.id, 'blocked', 'active', ''), undefined);
      assert.deepEqual(await store.intentions.get(intention.id), intention);

      clock.advance(1);
      const blocked = await store.intentions.transition(intention.id, 'active', 'blocked', 'awaiting_approval');
      assert.equal(blocked?.status, 'blocked');
      assert.equal(blocked?.reason, 'awaiting_approval');
      assert.equal(blocked?.closedAt, null);
      clock.advance(1);
      const done = await store.intentions.transition(intention.id, ['active', 'blocked'], 'fulfilled', 'completed');
      assert.deepEqual(done?.closedAt, clock.now());
      assert.equal(await store.intentions.transition(intention.id, ['active', 'blocked'], 'abandoned', 'cancelled'), undefined);
      await assert.rejects(store.intentions.transition(intention.id, 'fulfilled', 'active', 'bogus' as ''), /intentions_reason_check/);
    });

    it("lists a mind's intentions newest first, optionally by status", async () => {
      const { store, clock } = current();
      const mind = await store.minds.create({ name: `m-${newId()}` });
      const first = await store.intentions.create({ mindId: mind.id, objective: 'a', origin: 'api' });
      clock.advance(1);
      const second = await store.intentions.create({ mindId: mind.id, objective: 'b', origin: 'api' });
      await store.intentions.transition(first.id, 'active', 'suspended', 'quiesced');
      assert.deepEqual(
        (await store.intentions.listByMind(mind.id)).map((i) => i.id),
        [second.id, first.id],
      );
      assert.deepEqual(
        (await store.intentions.listByMind(mind.id, { status: 'suspended' })).map((i) => i.id),
        [first.id],
      );
      assert.equal((await store.intentions.listByMind(mind.id, { limit: 1 })).length, 1);
    });
  });

  describe(`events repository (${kind})`, () => {
    const current = useStore(kind);

    it('appends events in order and reads them back by mind, plan or intention', async () => {
      const { store, clock } = current();
      const { mind, intention, plan } = await seedPlan(store);
      const step = plan.steps[0]!;
      const appended = [];
      const kinds: EventType[] = ['intention_formed', 'plan_created', 'plan_step_started', 'operator_note'];
      for (const type of kinds) {
        clock.advance(1);
        appended.push(
          await store.events.append({
            type,
            mindId: mind.id,
            intentionId: intention.id,
            planId: type === 'intention_formed' ? null : plan.id,
            stepId: type === 'plan_step_started' ? step.id : null,
            data: { type, nested: { list: [1, 'two'] } },
          }),
        );
      }
      const seqs = appended.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
      );
      assert.equal(typeof seqs[0], 'number');
      assert.deepEqual(appended[2], {
        seq: seqs[2],
        id: appended[2]!.id,
        type: 'plan_step_started',
        mindId: mind.id,
        intentionId: intention.id,
        planId: plan.id,
        stepId: step.id,
        data: { type: 'plan_step_started', nested: { list: [1, 'two'] } },
        createdAt: appended[2]!.createdAt,
      });

      assert.deepEqual(await store.events.list({ mindId: mind.id }), appended);
      assert.deepEqual(await store.events.list({ intentionId: intention.id }), appended);
      assert.deepEqual(await store.events.list({ planId: plan.id }), appended.slice(1));
      assert.deepEqual(await store.events.list({ mindId: mind.id, afterSeq: seqs[1] }), appended.slice(2));
      assert.deepEqual(await store.events.list({ mindId: mind.id, limit: 2 }), appended.slice(0, 2));
      assert.deepEqual(await store.events.list({ mindId: newId() }), []);
    });

    it('defaults data to an empty object and refuses an unknown type', async () => {
      const { store } = current();
      const event = await store.events.append({ type: 'operator_note' });
      assert.deepEqual(event.data, {});
      assert.equal(event.mindId, null);
      await assert.rejects(store.events.append({ type: 'plan_exploded' as EventType }), /unknown event type/);
    });
  });
}

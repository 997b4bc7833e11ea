// Access tokens on both stores: issued once, checked by hash, refused when revoked or expired.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authenticate, hashToken, issueToken } from '../../src/access/tokens.ts';
import { InputError } from '../../src/core/errors.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`access tokens (${kind})`, () => {
    const current = useStore(kind);

    it('issues a token that authenticates as its operator and role, and stores only its hash', async () => {
      const { store } = current();
      const issued = await issueToken(store, { operator: 'alice', role: 'operator', label: 'laptop' });
      assert.match(issued.token, /^praxis_[A-Za-z0-9_-]{43}$/);
      const principal = await authenticate(store, issued.token);
      assert.deepEqual(principal, { tokenId: issued.record.id, operator: 'alice', role: 'operator', mindId: null });
      const row = await store.db.selectFrom('access_tokens').selectAll().where('id', '=', issued.record.id).executeTakeFirstOrThrow();
      assert.equal(row.token_hash, hashToken(issued.token));
      assert.ok(!JSON.stringify(row).includes(issued.token), 'the secret itself is nowhere in the row');
      assert.equal(await authenticate(store, `${issued.token}x`), null, 'a different secret is refused');
      assert.equal(await authenticate(store, 'not-a-token'), null);
    });

    it('refuses a revoked token', async () => {
      const { store } = current();
      const issued = await issueToken(store, { operator: 'bob', role: 'viewer' });
      assert.ok(await authenticate(store, issued.token));
      assert.ok(await store.accessTokens.revoke(issued.record.id));
      assert.equal(await authenticate(store, issued.token), null);
      assert.equal(await store.accessTokens.revoke(issued.record.id), null, 'revoking twice changes nothing');
    });

    it('refuses an expired token once the clock passes its expiry', async () => {
      const { store, clock } = current();
      const issued = await issueToken(store, { operator: 'carol', role: 'admin', expiresAt: new Date(clock.now().getTime() + 60_000) });
      assert.ok(await authenticate(store, issued.token));
      clock.advance(61);
      assert.equal(await authenticate(store, issued.token), null);
    });

    it('binds an agent token to one mind, and refuses an agent without one or a mind on another role', async () => {
      const { store } = current();
      const mind = await store.minds.create({ name: `agent-mind-${kind}`, host: null });
      const agent = await issueToken(store, { operator: 'bot', role: 'agent', mindId: mind.id });
      assert.equal((await authenticate(store, agent.token))?.mindId, mind.id);
      const codes = async (request: Parameters<typeof issueToken>[1]) => {
        const error = await issueToken(store, request).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(error instanceof InputError, 'refused with a typed error');
        return error.problems.map((p) => p.code);
      };
      assert.deepEqual(await codes({ operator: 'bot', role: 'agent' }), ['agent_needs_mind']);
      assert.deepEqual(await codes({ operator: 'alice', role: 'viewer', mindId: mind.id }), ['mind_only_for_agents']);
    });

    it('refuses a bad role, a missing operator and a past expiry, storing nothing', async () => {
      const { store, clock } = current();
      const before = (await store.accessTokens.list()).length;
      const error = await issueToken(store, { operator: ' ', role: 'root', expiresAt: new Date(clock.now().getTime() - 1000) }).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(error instanceof InputError);
      assert.deepEqual(error.problems.map((p) => p.code).sort(), ['expiry_in_past', 'invalid_operator', 'invalid_role']);
      assert.equal((await store.accessTokens.list()).length, before);
    });
  });
}

// `praxis grant` and `praxis revoke` from the built command: they go through grantRequest and
// revokeGrant, so a grant wider than asked, or of a request no longer open, is refused with the
// API's code and the catalogue's exit code.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { praxis, storeEnv } from '../daemon/process.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`praxis grant and revoke (${kind})`, () => {
    const current = useStore(kind);

    it('grants within the request, refuses a wider or second grant, and revokes', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const mind = await store.minds.create({ name: `grants-${kind}` });
      const service = new CapabilityService(store, builtinRegistry(), {});
      const raise = async () => {
        const answer = await service.requestCapability({
          mindId: mind.id,
          origin: 'test',
          capability: 'service.status',
          targetPattern: '*',
          durationSeconds: 3600,
          maxOperations: 5,
          reason: 'look at the units',
          risk: 'low',
          mitigation: 'read-only',
          fallback: 'ask again',
        });
        assert.equal(answer.status, 'raised');
        return answer.status === 'raised' ? answer.requestId : '';
      };

      const first = await raise();
      const wider = await praxis(['grant', first, '--as', 'alice', '--operations', '99'], env);
      assert.equal(wider.code, 1, wider.stderr);
      assert.match(wider.stderr, /error wider_than_requested at --operations/);

      const granted = await praxis(['grant', first, '--as', 'alice', '--operations', '2', '--json'], env);
      assert.equal(granted.code, 0, granted.stderr);
      const grant = JSON.parse(granted.stdout) as { id: string; operationsLeft: number; status: string };
      assert.deepEqual([grant.operationsLeft, grant.status], [2, 'active']);

      const again = await praxis(['grant', first, '--as', 'alice'], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /error not_open at id/);

      const revoked = await praxis(['revoke', grant.id, '--as', 'alice'], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, new RegExp(`revoked ${grant.id}`));
      assert.equal((await store.grants.get(grant.id))?.status, 'revoked');
    });
  });
}

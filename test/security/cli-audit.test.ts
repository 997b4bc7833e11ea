// The built `praxis` command under issue 15's remaining rules, on both stores: policy and token
// changes on the audit trail with who made them; free text on the command line under the input
// rule (exit 2 naming the option, nothing changed); approvals signed with the secret file the
// CLI shares with the daemon, refused when altered; naming the author of an authorless request.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadApprovalKey } from '../../src/access/daemon-secret.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import { CapabilityService } from '../../src/capabilities/service.ts';
import { praxis, storeEnv } from '../daemon/process.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';

/** Requests are only raised here; nothing is performed, so no host is needed. */
const noHost = {};

interface AuditEvent {
  type: string;
  data: Record<string, unknown>;
}

for (const kind of STORE_KINDS) {
  describe(`praxis audit trail, input rule and keyed approvals (${kind})`, () => {
    const current = useStore(kind);
    const dir = mkdtempSync(join(tmpdir(), 'praxis-cli-audit-'));
    const secretFile = join(dir, 'daemon.secret');
    after(() => rmSync(dir, { recursive: true, force: true }));
    const run = (args: string[]) => praxis(args, { ...storeEnv(current().config), PRAXIS_SECRET_FILE: secretFile });
    const audit = async (): Promise<AuditEvent[]> => {
      const listed = await run(['timeline', '--audit', '--limit', '500', '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      return JSON.parse(listed.stdout) as AuditEvent[];
    };

    it('policy set and remove are on the audit trail with --as, or the OS user', async () => {
      assert.equal((await run(['mind', 'create', 'ops'])).code, 0);
      assert.equal((await run(['policy', 'set', '--mind', 'ops', 'test.write', 'svc-*', 'ask', '--as', 'alice'])).code, 0);
      assert.equal((await run(['policy', 'remove', '--mind', 'ops', 'test.write', 'svc-*'])).code, 0);
      const changes = (await audit()).filter((e) => e.type.startsWith('policy_rule_'));
      assert.deepEqual(
        changes.map((e) => [e.type, e.data.operator, e.data.capability, e.data.target_pattern, e.data.decision]),
        [
          ['policy_rule_set', 'alice', 'test.write', 'svc-*', 'ask'],
          ['policy_rule_removed', userInfo().username, 'test.write', 'svc-*', 'ask'],
        ],
      );
      const table = await run(['timeline', '--mind', 'ops']);
      assert.match(table.stdout, /policy_rule_set .*test\.write svc-\*; decision=ask; operator=alice/);
    });

    it('token create and revoke are on the audit trail with who did it; the secret is not', async () => {
      const created = await run(['token', 'create', '--operator', 'night-bot', '--role', 'viewer', '--label', 'pager', '--as', 'adam', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const token = JSON.parse(created.stdout) as { token: string; id: string };
      assert.equal((await run(['token', 'revoke', token.id, '--as', 'olga'])).code, 0);
      const again = await run(['token', 'revoke', token.id, '--as', 'olga']);
      assert.equal(again.code, 1);
      const events = (await audit()).filter((e) => e.data.token_id === token.id);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.operator, e.data.token_operator, e.data.role, e.data.label]),
        [
          ['token_created', 'adam', 'night-bot', 'viewer', 'pager'],
          ['token_revoked', 'olga', 'night-bot', 'viewer', 'pager'],
        ],
      );
      assert.ok(!JSON.stringify(events).includes(token.token));
    });

    it('a control character or an over-long value in free text is exit 2 naming the option; nothing changes', async () => {
      const before = (await audit()).length;
      const cases: [string[], string, string][] = [
        [['token', 'create', '--operator', 'x', '--role', 'viewer', '--label', 'a\u001bb', '--json'], '--label', 'control_character'],
        [['token', 'create', '--operator', 'x', '--role', 'viewer', '--label', 'l'.repeat(201), '--json'], '--label', 'too_long'],
        [['policy', 'set', '--mind', 'ops', 'test.write', '*', 'allow', '--as', 'eve\u0007', '--json'], '--as', 'control_character'],
        [['intend', 'o\u0001bjective', '--mind', 'ops', '--json'], 'objective', 'control_character'],
        [['approve', '01890000-0000-7000-8000-000000000000', '--as', 'carol', '--note', 'n'.repeat(2001), '--json'], '--note', 'too_long'],
        [['invoke', 'service.status', '--mind', 'ops', '--params', '{"unit":"a.service"}', '--why', 'w\u0085hy', '--json'], '--why', 'control_character'],
      ];
      for (const [args, path, code] of cases) {
        const refused = await run(args);
        assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`);
        const problem = (JSON.parse(refused.stdout) as { errors: { path: string; code: string }[] }).errors[0]!;
        assert.deepEqual([problem.path, problem.code], [path, code], args.join(' '));
      }
      assert.equal((await audit()).length, before, 'no token, rule or anything else was recorded');
      const intentions = await run(['plans', '--mind', 'ops', '--json']);
      assert.equal(intentions.code, 0);
    });

    it('approvals are signed with the shared secret file; an altered one is refused; an authorless one gets its author named', async () => {
      const { store, clock } = current();
      // The commands run on the wall clock: requests raised here must not have expired for them.
      clock.set(new Date());
      const mind = (await store.minds.getByName('ops'))!;
      await store.policyRules.set({ mindId: mind.id, capability: 'service.restart', targetPattern: '*', decision: 'ask', approvers: 1 });
      // A library caller holding the secret file the CLI reads raises requests, one of them naming nobody.
      const loaded = loadApprovalKey(secretFile);
      assert.equal(loaded.created, true);
      assert.equal(statSync(secretFile).mode & 0o777, 0o600, 'owner only');
      const service = new CapabilityService(store, builtinRegistry(), noHost, { approvalKey: loaded.key });
      const raise = async (name: string, authoredBy?: string) => {
        const result = await service.invoke({ mindId: mind.id, capability: 'service.restart', params: { unit: `${name}.service` }, origin: 'operator:lib', ...(authoredBy ? { authoredBy } : {}) });
        assert.equal(result.status, 'pending');
        return result.status === 'pending' ? result.approvalId : '';
      };

      const altered = await raise('svc-a', 'alice');
      const other = store.kind === 'postgres' ? sql`'{"unit":"svc-b.service"}'::jsonb` : '{"unit":"svc-b.service"}';
      await store.db
        .updateTable('approval_requests')
        .set({ target: 'svc-b.service', params: other as never })
        .where('id', '=', altered)
        .execute();
      const tampered = await run(['approve', altered, '--as', 'carol', '--json']);
      assert.equal(tampered.code, 1, tampered.stderr);
      assert.equal(JSON.parse(tampered.stdout).errors[0].code, 'tampered');
      assert.equal((await store.approvals.get(altered))?.status, 'failed');

      const authorless = await raise('svc-c');
      const early = await run(['approve', authorless, '--as', 'carol', '--json']);
      assert.equal(JSON.parse(early.stdout).errors[0].code, 'no_author');
      const badName = await run(['author', authorless, 'al\u0002ice', '--as', 'nina', '--json']);
      assert.equal(badName.code, 2);
      assert.equal(JSON.parse(badName.stdout).errors[0].path, 'author');
      const named = await run(['author', authorless, 'alice', '--as', 'nina']);
      assert.equal(named.code, 0, named.stderr);
      assert.match(named.stdout, /alice is the author of .*; an operator other than alice and nina must approve it/);
      for (const who of ['Nina', 'ALICE']) {
        const self = await run(['approve', authorless, '--as', who, '--json']);
        assert.equal(self.code, 1, who);
        assert.equal(JSON.parse(self.stdout).errors[0].code, 'self_approval', who);
      }
      assert.equal((await run(['approve', authorless, '--as', 'carol'])).code, 0);
      const trail = (await audit()).filter((e) => e.data.approval_id === altered || e.data.approval_id === authorless);
      assert.deepEqual(
        trail.map((e) => [e.type, e.data.operator]),
        [
          ['approval_tampered', 'carol'],
          ['approval_author_named', 'nina'],
        ],
      );
    });

    it('a secret file others can read is refused (exit 2, naming it); one signed under another secret says so', async () => {
      const { store, clock } = current();
      clock.set(new Date());
      const mind = (await store.minds.getByName('ops'))!;
      const service = new CapabilityService(store, builtinRegistry(), noHost, { approvalKey: loadApprovalKey(secretFile).key });
      const result = await service.invoke({ mindId: mind.id, capability: 'service.restart', params: { unit: 'svc-d.service' }, origin: 'operator:lib', authoredBy: 'alice' });
      const id = result.status === 'pending' ? result.approvalId : '';

      chmodSync(secretFile, 0o644);
      const exposed = await run(['approve', id, '--as', 'carol', '--json']);
      chmodSync(secretFile, 0o600);
      assert.equal(exposed.code, 2, exposed.stdout + exposed.stderr);
      const problem = JSON.parse(exposed.stdout).errors[0] as { code: string; message: string };
      assert.equal(problem.code, 'secret_file_exposed');
      assert.ok(problem.message.includes(secretFile) && problem.message.includes('chmod 600'), problem.message);

      const otherSecret = join(dir, 'other.secret');
      const stranger = await praxis(['approve', id, '--as', 'carol', '--json'], { ...storeEnv(current().config), PRAXIS_SECRET_FILE: otherSecret });
      assert.ok(existsSync(otherSecret));
      assert.equal(stranger.code, 1);
      const answer = JSON.parse(stranger.stdout).errors[0] as { code: string; message: string };
      assert.equal(answer.code, 'digest_key_mismatch');
      assert.match(answer.message, /PRAXIS_SECRET_FILE/);
      assert.equal((await store.approvals.get(id))?.status, 'pending');
      assert.equal((await run(['approve', id, '--as', 'carol'])).code, 0);
    });
  });
}

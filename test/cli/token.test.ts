// `praxis token` as an operator runs it, on both stores: the secret printed once, only its hash
// kept, listing without secrets, revoking once.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { authenticate } from '../../src/access/tokens.ts';
import { parseDuration } from '../../src/cli/commands/token.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { praxis, storeEnv } from '../daemon/process.ts';

describe('token durations', () => {
  it('reads 90m, 12h, 30d, 1d12h and refuses anything else', () => {
    assert.equal(parseDuration('90m'), 5400);
    assert.equal(parseDuration('12h'), 43_200);
    assert.equal(parseDuration('1d12h'), 129_600);
    for (const bad of ['', '12', 'soon', '-1h', '0m', '1y']) assert.equal(parseDuration(bad), null, bad);
    // At most ten years: 999999w is past year 9999, and repeated it overflowed the date.
    assert.equal(parseDuration('520w'), 520 * 7 * 86_400);
    for (const bad of ['999999w', '999999w'.repeat(15), '3651d']) assert.equal(parseDuration(bad), null, bad);
  });
});

describe('refused commands open no store', () => {
  it('a bad role, an agent without a mind, a bad mind name or a token that is no token: exit 2, no store file made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'praxis-refused-'));
    try {
      const db = join(dir, 'never.db');
      const env = storeEnv({ kind: 'sqlite', path: db });
      for (const args of [
        ['token', 'create', '--operator', 'bob', '--role', 'root'],
        ['token', 'create', '--operator', 'bot', '--role', 'agent'],
        ['token', 'create', '--operator', 'bob', '--role', 'viewer', '--expires-in', '999999w'],
        ['mind', 'create', ''],
        ['mind', 'create', '-bad'],
        ['mcp', '--token', 'not-a-token'],
      ]) {
        const refused = await praxis(args, env);
        assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
        assert.equal(existsSync(db), false, `${args.join(' ')} made a store`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`praxis token (${kind})`, () => {
    const current = useStore(kind);

    it('creates, lists and revokes tokens', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const created = await praxis(['token', 'create', '--operator', 'alice', '--role', 'operator', '--label', 'laptop', '--expires-in', '30d'], env);
      assert.equal(created.code, 0, created.stderr);
      const secret = created.stdout.trim();
      assert.match(secret, /^praxis_\S+$/, 'stdout holds the secret alone, for scripts');
      assert.match(created.stderr, /shown only now/);
      const principal = await authenticate(store, secret);
      assert.equal(principal?.operator, 'alice');
      assert.equal(principal?.role, 'operator');

      const listed = await praxis(['token', 'list'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^ID\s+OPERATOR\s+ROLE/m);
      assert.match(listed.stdout, new RegExp(`${principal!.tokenId}\\s+alice\\s+operator\\s+active`));
      assert.ok(!listed.stdout.includes(secret), 'the secret is never listed');
      const json = JSON.parse((await praxis(['token', 'list', '--json'], env)).stdout) as { id: string; label: string }[];
      assert.deepEqual(
        json.map((t) => t.label),
        ['laptop'],
      );

      const revoked = await praxis(['token', 'revoke', principal!.tokenId!], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(await authenticate(store, secret), null, 'a revoked token no longer authenticates');
      const again = await praxis(['token', 'revoke', principal!.tokenId!], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /already_revoked/);
      assert.match((await praxis(['token', 'list'], env)).stdout, /revoked/);
    });

    it('refuses bad input with a typed error and stores nothing', async () => {
      const { store, config } = current();
      const env = storeEnv(config);
      const before = (await store.accessTokens.list()).length;
      const badRole = await praxis(['token', 'create', '--operator', 'bob', '--role', 'root'], env);
      assert.equal(badRole.code, 2);
      assert.match(badRole.stderr, /invalid_role at --role/);
      const agent = await praxis(['token', 'create', '--operator', 'bot', '--role', 'agent'], env);
      assert.equal(agent.code, 2);
      assert.match(agent.stderr, /agent_needs_mind/);
      const duration = await praxis(['token', 'create', '--operator', 'bob', '--role', 'viewer', '--expires-in', 'soon'], env);
      assert.equal(duration.code, 2);
      assert.match(duration.stderr, /invalid_duration at --expires-in/);
      const badId = await praxis(['token', 'revoke', 'nope'], env);
      assert.equal(badId.code, 2);
      assert.match(badId.stderr, /invalid_id at token-id/);
      assert.equal((await store.accessTokens.list()).length, before);
    });
  });
}

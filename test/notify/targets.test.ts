// Webhook targets in the daemon's configuration: the file's list, the first target from
// PRAXIS_WEBHOOK_*, the console's public address, and every bad value refused with a problem
// that names where it came from and never repeats a secret or a webhook's path.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError, type Problem } from '../../src/core/errors.ts';
import { resolveDaemonConfig, type ConfigFile } from '../../src/daemon/config.ts';
import { signBody, verifyDelivery } from '../../src/notify/signature.ts';
import { isRetryable, retryDelayMs } from '../../src/notify/retry.ts';

const around = { defaultConsoleDir: null, defaultExecutorHost: 'node-a', consoleAt: () => null };
const SECRET = 'correct-horse-battery-staple';
const file = (values: Record<string, unknown>): ConfigFile => ({ path: '/etc/praxis.yaml', values });

function problems(env: Record<string, string>, config: ConfigFile | null): Problem[] {
  try {
    resolveDaemonConfig({}, env, config, around);
  } catch (error) {
    assert.ok(error instanceof InputError);
    return error.problems;
  }
  assert.fail('accepted');
}

describe('webhook configuration', () => {
  it('has no targets unless configured', () => {
    assert.deepEqual(resolveDaemonConfig({}, {}, null, around).notifications, { targets: [], publicUrl: null });
  });

  it('takes the first target from PRAXIS_WEBHOOK_URL and PRAXIS_WEBHOOK_SECRET', () => {
    const config = resolveDaemonConfig({}, { PRAXIS_WEBHOOK_URL: 'http://10.0.0.5:8080/praxis', PRAXIS_WEBHOOK_SECRET: SECRET, PRAXIS_PUBLIC_URL: 'https://praxis.internal/' }, null, around);
    assert.deepEqual(config.notifications, {
      targets: [{ name: 'default', url: 'http://10.0.0.5:8080/praxis', secret: SECRET, format: 'praxis', topics: null }],
      publicUrl: 'https://praxis.internal',
    });
  });

  it('reads a list from the file, the environment overriding the first target', () => {
    const config = resolveDaemonConfig(
      {},
      { PRAXIS_WEBHOOK_SECRET: SECRET },
      file({
        publicUrl: 'https://praxis.example.org',
        webhooks: [
          { url: 'https://hooks.example.org/praxis', secret: 'from-the-file-but-overridden' },
          { name: 'chat', url: 'https://chat.example.org/services/T1/B2/XYZ', secret: 'another-long-secret', format: 'slack', topics: ['approval.requested', 'intention.escalated'] },
        ],
      }),
      around,
    );
    assert.deepEqual(
      config.notifications?.targets.map((t) => [t.name, t.secret, t.format, t.topics]),
      [
        ['default', SECRET, 'praxis', null],
        ['chat', 'another-long-secret', 'slack', ['approval.requested', 'intention.escalated']],
      ],
    );
    assert.equal(config.notifications?.publicUrl, 'https://praxis.example.org');
  });

  it('refuses bad targets, each problem named, without repeating a secret or a path', () => {
    const found = problems(
      { PRAXIS_PUBLIC_URL: 'praxis.example.org' },
      file({
        webhooks: [
          { url: 'ftp://files.example.org/x', secret: 'short' },
          { name: 'Chat Room', url: 'https://chat.example.org/services/T1/B2/SECRETPATH', secret: SECRET, format: 'teams', topics: ['approval.opened'], colour: 'red' },
        ],
      }),
    );
    assert.deepEqual(
      found.map((p) => [p.code, p.path]),
      [
        ['invalid_webhook_url', '/etc/praxis.yaml: webhooks[0].url'],
        ['invalid_webhook_secret', '/etc/praxis.yaml: webhooks[0].secret'],
        ['unknown_setting', '/etc/praxis.yaml: webhooks[1].colour'],
        ['invalid_webhook_name', '/etc/praxis.yaml: webhooks[1].name'],
        ['invalid_webhook_format', '/etc/praxis.yaml: webhooks[1].format'],
        ['invalid_webhook_topics', '/etc/praxis.yaml: webhooks[1].topics'],
        ['invalid_public_url', 'PRAXIS_PUBLIC_URL'],
      ],
    );
    const text = JSON.stringify(found);
    assert.ok(!text.includes('short') && !text.includes(SECRET) && !text.includes('SECRETPATH'), text);
    const withCredentials = problems({}, file({ webhooks: [{ url: 'https://hook:p4ssw0rd@chat.example.org/hook', secret: SECRET }] }));
    assert.deepEqual(
      withCredentials.map((p) => [p.code, p.path]),
      [['invalid_webhook_url', '/etc/praxis.yaml: webhooks[0].url']],
      'fetch refuses a URL with credentials: no delivery could ever be made',
    );
    assert.ok(!JSON.stringify(withCredentials).includes('p4ssw0rd'));
    assert.deepEqual(
      problems({ PRAXIS_WEBHOOK_SECRET: SECRET }, null).map((p) => p.code),
      ['invalid_webhook'],
    );
    assert.deepEqual(
      problems({}, file({ webhooks: { url: 'https://x.example.org' } })).map((p) => p.code),
      ['invalid_webhooks'],
    );
    assert.deepEqual(
      problems(
        {},
        file({
          webhooks: [
            { name: 'a', url: 'https://x.example.org', secret: SECRET },
            { name: 'a', url: 'https://y.example.org', secret: SECRET },
          ],
        }),
      ).map((p) => p.code),
      ['duplicate_webhook'],
    );
  });
});

describe('signatures and retries', () => {
  it('signs the timestamp with the body, and a receiver refuses a changed body, another secret or an old timestamp', () => {
    const body = '{"topic":"approval.requested"}';
    const signature = signBody(SECRET, 1_800_000_000, body);
    assert.match(signature, /^sha256=[0-9a-f]{64}$/);
    const headers = { signature, timestamp: '1800000000' };
    assert.deepEqual(verifyDelivery(SECRET, headers, body, 1_800_000_100), { ok: true });
    assert.deepEqual(verifyDelivery(SECRET, headers, `${body} `, 1_800_000_100), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyDelivery('another-secret-of-length', headers, body, 1_800_000_100), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyDelivery(SECRET, { signature, timestamp: '1800000001' }, body, 1_800_000_100), { ok: false, reason: 'bad_signature' }, 'the timestamp is signed');
    assert.deepEqual(verifyDelivery(SECRET, headers, body, 1_800_000_301), { ok: false, reason: 'stale' });
    assert.deepEqual(verifyDelivery(SECRET, { signature }, body, 1_800_000_100), { ok: false, reason: 'missing_headers' });
  });

  it('backs off 5 s, 10 s, 20 s... up to 15 minutes, retrying only what may change', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 9, 20].map((n) => retryDelayMs(n)),
      [5_000, 10_000, 20_000, 40_000, 900_000, 900_000],
    );
    assert.deepEqual([null, 500, 503, 429, 408, 400, 401, 404, 301].map(isRetryable), [true, true, true, true, true, false, false, false, false]);
  });
});

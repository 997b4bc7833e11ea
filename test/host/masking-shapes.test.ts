// The credential shapes the masker knows by their look alone (issue 15, finding 7): a corpus per
// shape, bare and inside ordinary text, and for each the look-alikes it must leave alone.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LineMasker, mask, maskCredentialShapes, maskKnown } from '../../src/capabilities/host/masking.ts';

const b64url = (n: number, seed: string) =>
  Buffer.from(seed.repeat(Math.ceil(n / seed.length)))
    .toString('base64url')
    .slice(0, n);
const praxisToken = () => `praxis_${randomBytes(32).toString('base64url')}`;

/** Shape name → secrets of that shape (each must mask to "[secret]" bare and in a sentence). */
const SECRETS: Record<string, string[]> = {
  'OpenAI keys': [
    `sk-${'Ab3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY'.slice(0, 32)}T3BlbkFJ${'q1W2e3R4t5Y6u7I8o9P0'}`,
    `sk-proj-${b64url(120, 'proj-key-7Hx_')}`,
    `sk-svcacct-${b64url(80, 'svc9Z_')}`,
    `sk-admin-${b64url(60, 'adm1N-')}`,
    'sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c',
  ],
  'Anthropic keys': [`sk-ant-api03-${b64url(93, 'aNt3h-r_0p1c')}-AA`, `sk-ant-admin01-${b64url(80, 'Adm1n_x')}`],
  'OpenRouter keys': [`sk-or-v1-${'0123456789abcdef'.repeat(4)}`],
  'AWS access key ids': ['AKIAIOSFODNN7EXAMPLE', 'ASIAY34FZKBOKMUTVV7A', 'AROAJ5ZKB4ZGNDXNQ7C3K'.slice(0, 20)],
  'GitHub tokens': [
    `ghp_${'A1b2C3d4E5'.repeat(4).slice(0, 36)}`,
    `gho_${'Z9y8X7w6V5'.repeat(4).slice(0, 36)}`,
    `ghs_${'q1W2e3R4t5'.repeat(4).slice(0, 36)}`,
    `github_pat_11ABCDEFG0${'a1B2c3D4e5'.repeat(6)}`,
  ],
  'GitLab tokens': ['glpat-Abcdefghij0123456789', 'gldt-xY7_zQ9kLmN3pR5sT8vW', 'glrt-AbC123dEf456GhI789jK'],
  'Slack tokens': [
    'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    'xoxp-123456789012-123456789012-123456789012-abcdef0123456789abcdef0123456789',
    'xapp-1-A0123456789-1234567890123-abcdef0123456789',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  ],
  'JSON Web Tokens': [
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJhdXRoIn0.abc-DEF_123',
  ],
  'Stripe, npm and Hugging Face tokens': [
    `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
    `rk_test_${'51H8abcDEF0123456789xyz'}`,
    `npm_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
    `hf_${'AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh'}`,
  ],
  'Praxis tokens': [praxisToken(), praxisToken(), `praxis_${'aB3-_'.repeat(9)}`],
};

/** Text that starts like a credential but is not one: it must come out as it went in. */
const LOOK_ALIKES: string[] = [
  'import sk-learn as sklearn',
  'sk-1234 is a short id',
  'task-runner-configuration-2024-v2 started',
  'disk-usage-report-2024-01-15-final.csv written',
  'flag --risk-level-threshold-value-9000',
  'sk-long-descriptive-name-without-digits here',
  'ghp_short token-like name',
  'github_pat_ is the prefix of fine-grained tokens',
  "glpat- is GitLab's prefix",
  'xoxb- prefix documented',
  'the file praxis_demo.db was opened',
  'praxis_test_database_for_integration_suite_v2 dropped',
  'praxis_token_created event',
  'eyJ is how base64 JSON starts',
  'AKIA is the prefix of long-term AWS keys',
  'AKIAIOSFODNN7EXAMPL is too short',
  'hf_hub_download called',
  'npm_config_cache=/tmp/npm',
  'sk_live_ and rk_test_ are Stripe prefixes',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 applied (aws deploy)',
  'sha 0123456789abcdef0123456789abcdef01234567 aws-cli/2.15.0',
  'hooks.slack.com/services is the webhook host',
  '-----BEGIN CERTIFICATE-----',
  '-----BEGIN PUBLIC KEY-----',
];

describe('mask: credential shapes (finding 7)', () => {
  for (const [shape, secrets] of Object.entries(SECRETS)) {
    describe(shape, () => {
      secrets.forEach((secret, i) => {
        it(`sample ${i + 1} bare, in a sentence, quoted and after a colon`, () => {
          assert.equal(mask(secret), '[secret]', secret);
          assert.equal(mask(`using ${secret} now`), 'using [secret] now');
          assert.equal(mask(`echo "${secret}"`), 'echo "[secret]"');
          assert.equal(mask(`invalid key (${secret}).`), 'invalid key ([secret]).');
          assert.equal(maskCredentialShapes(`from 10.0.0.1 key ${secret}`), 'from 10.0.0.1 key [secret]');
        });
      });
    });
  }

  it('an AWS secret access key on a line naming its key id or AWS', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    assert.equal(mask(`AKIAIOSFODNN7EXAMPLE,${secret}`), '[secret],[secret]');
    assert.equal(mask(`aws configure set secret ${secret}`), 'aws configure set secret [secret]');
    assert.equal(mask(`AWS_SECRET_ACCESS_KEY=${secret}`), 'AWS_SECRET_ACCESS_KEY=[secret]');
    assert.equal(mask(`"SecretAccessKey": "${secret}"`), '"SecretAccessKey": "[secret]"');
    // Without that context, it is still a long run of base64 mixing cases and digits: masked as
    // possible key material (below), as every such run is.
    assert.equal(mask(`blob ${secret}`), 'blob [secret]');
  });

  it("a private key's lines without its BEGIN line (a journal window or a grep cut into it)", () => {
    const lines = [
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
      'MwJzsQ3lmhw1WvEyGNeDVXsDuR6Y/fx+iG0nHhtVkEFrOA5hmrWNgM8xNhyo6Ht2',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdz',
    ];
    for (const line of lines) {
      assert.equal(mask(line), '[secret]', line);
      assert.equal(mask(`app[812]: ${line}`), 'app[812]: [secret]', line);
      assert.equal(maskCredentialShapes(line), '[secret]', line);
    }
    assert.equal(mask(`${lines[0]}\n-----END PRIVATE KEY-----`), '[secret]\n-----END PRIVATE KEY-----');
    // Long runs that are not key material: hex ids and hashes (one case), words and paths.
    for (const ordinary of [
      'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 9fceb02d0ae598e95dc970b74767f19372d61af8',
      'ETAG 2C26B46B68FFC68FF99B453C1D30413413422D706483BFA0F98A5E886266E7AE',
      'open /srv/Backups2024/DatabaseDumps/Weekly/Archive7: no such file',
      'integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC',
    ]) {
      assert.equal(mask(ordinary), ordinary);
    }
  });

  it('PEM private key blocks of every kind', () => {
    for (const kind of ['RSA ', 'EC ', 'DSA ', 'OPENSSH ', 'ENCRYPTED ', '']) {
      const block = `-----BEGIN ${kind}PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nabc+/=\n-----END ${kind}PRIVATE KEY-----`;
      assert.equal(mask(`before\n${block}\nafter`), 'before\n[private-key]\nafter');
    }
    assert.equal(mask('-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----'), '[private-key]');
  });

  for (const line of LOOK_ALIKES) {
    it(`leaves alone: ${line.slice(0, 60)}`, () => {
      assert.equal(mask(line), line);
      assert.equal(maskCredentialShapes(line), line);
    });
  }

  it('masking is idempotent and line by line equals whole text on the corpus', () => {
    const text = [
      ...Object.values(SECRETS)
        .flat()
        .map((s) => `k ${s} v`),
      ...LOOK_ALIKES,
    ].join('\n');
    const once = mask(text);
    assert.equal(mask(once), once);
    const lines = new LineMasker();
    const streamed =
      text
        .split(/(?<=\n)/)
        .map((l) => lines.push(l))
        .join('') + lines.end();
    assert.equal(streamed, once);
  });

  it('maskKnown hides a configured secret that has no recognisable shape', () => {
    assert.equal(maskKnown('401: bad key local-model-key-42 for admin@example.com', ['local-model-key-42']), '401: bad key [secret] for [email]');
    assert.equal(maskKnown('nothing to hide', [undefined, null, 'x']), 'nothing to hide');
  });
});

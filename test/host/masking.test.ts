import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineMasker, mask } from '../../src/capabilities/host/masking.ts';

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const GHP = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
const PEM = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi+Dq5XjYkR0i6qJxC0LQ4x2Jxk',
  'q3H8aMaRy2y0oZ3mQ1o6b1Qy8H4vW0uF1Xz8b9u1Y3e5qX0cK7m2nP4tS6rVwQ==',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

/** [input, expected] pairs: what must be masked, and exactly how. */
const masked: [string, string][] = [
  ['login by john.doe@example.com failed', 'login by [email] failed'],
  ['mail to Jane+ops@sub.example.co.uk.', 'mail to [email].'],
  ['From: <ops@example.org>', 'From: <[email]>'],
  ['client 192.168.1.20 port 22', 'client [ipv4] port 22'],
  ['connect to 10.0.0.1:5432', 'connect to [ipv4]:5432'],
  ['range 10.0.0.0/8 allowed', 'range [ipv4]/8 allowed'],
  ['from 203.0.113.7.', 'from [ipv4].'],
  ['root@10.0.4.12 logged in', 'root@[ipv4] logged in'],
  ['peer [2001:db8::1]:443 closed', 'peer [[ipv6]]:443 closed'],
  ['listen on ::1 and fe80::1%eth0', 'listen on [ipv6] and [ipv6]'],
  ['mapped ::ffff:192.0.2.1 seen', 'mapped [ipv6] seen'],
  ['full 2001:0db8:85a3:0000:0000:8a2e:0370:7334 ok', 'full [ipv6] ok'],
  ['net 2001:db8::/32 routed', 'net [ipv6]/32 routed'],
  ['connection from 2001:db8::5: refused', 'connection from [ipv6]: refused'],
  ['password=hunter2 user=bob', 'password=[secret] user=bob'],
  ['DB_PASSWORD=s3cr3t!', 'DB_PASSWORD=[secret]'],
  ['--password=abc --verbose', '--password=[secret] --verbose'],
  ['passwd: letmein', 'passwd: [secret]'],
  ['Server=db;Uid=sa;Pwd=P@ss;', 'Server=db;Uid=sa;Pwd=[secret];'],
  ['client_secret = "abc def"', 'client_secret = "[secret]"'],
  ['{"password": "s3cr\\"et", "user": "x"}', '{"password": "[secret]", "user": "x"}'],
  ['{"accessToken":"abc","expires":3600}', '{"accessToken":"[secret]","expires":3600}'],
  ["{'api_key': 'k-123'}", "{'api_key': '[secret]'}"],
  ['{\\"password\\":\\"x y\\"}', '{\\"password\\":\\"[secret]\\"}'],
  ['X-API-Key: 0123456789abcdef', 'X-API-Key: [secret]'],
  ['aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key=[secret]'],
  ['GET /cb?code=1&token=abc123&state=x', 'GET /cb?code=1&token=[secret]&state=x'],
  ['auth=Basic dXNlcjpwYXNz', 'auth=Basic [secret]'],
  ['Authorization: Bearer abc.def.ghi', 'Authorization: Bearer [secret]'],
  ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [secret]'],
  ['proxy-authorization: Negotiate YIIGhgYJKoZIhvcSAQICAQBuggZ1', 'proxy-authorization: Negotiate [secret]'],
  ['sent Bearer abcd1234efgh5678ijkl to upstream', 'sent Bearer [secret] to upstream'],
  [`id_token ${JWT} received`, 'id_token [secret] received'],
  ['postgres://app:Sup3r@Secret@db.internal:5432/app', 'postgres://[secret]@db.internal:5432/app'],
  ['redis://:hunter2@cache:6379/0', 'redis://[secret]@cache:6379/0'],
  ['key AKIAIOSFODNN7EXAMPLE in use', 'key [secret] in use'],
  ['temporary ASIAY34FZKBOKMUTVV7A expired', 'temporary [secret] expired'],
  [`push with ${GHP}`, 'push with [secret]'],
  [`github_pat_${'11ABCDEFG0'.repeat(3)}_xyz`, '[secret]'],
  ['gitlab glpat-Abcdefghij0123456789 ok', 'gitlab [secret] ok'],
  ['slack xoxb-123456789012-abcdefABCDEF ok', 'slack [secret] ok'],
  ['maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q ok', 'maps [secret] ok'],
  [`key follows\n${PEM}\ndone`, 'key follows\n[private-key]\ndone'],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', '[private-key]'],
  ['cut: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBADANBgkq', 'cut: [private-key]'],
  ['OAuth: password=abc', 'OAuth: password=[secret]'],
  ['dbPassword: abc user=x@example.com', 'dbPassword: [secret] user=[email]'],
  ['version 1.2.3.4 released', 'version [ipv4] released'],
  // Sessions in cookie headers, secrets given as options, PASS keys, no-break spaces.
  ['Cookie: sessionid=abc123; theme=dark', 'Cookie: [secret]'],
  ['< Set-Cookie: session=xyz; Path=/; HttpOnly', '< Set-Cookie: [secret]'],
  ['mysql --password hunter2 -h db', 'mysql --password [secret] -h db'],
  ['vault login --token s.AbCdEf123', 'vault login --token [secret]'],
  ['DB_PASS=hunter2 pass=hunter3 dbPass: x1', 'DB_PASS=[secret] pass=[secret] dbPass: [secret]'],
  ['secret\u00a0=\u00a0hunter2', 'secret\u00a0=\u00a0[secret]'],
];

/** Ordinary log text that must come out exactly as it went in. */
const ordinary: string[] = [
  '2026-12-02T11:00:00+00:00 web01 nginx[812]: worker process started',
  '2026-12-02 11:00:00.123 UTC [4411] LOG:  checkpoint complete: wrote 42 buffers (0.3%)',
  'Dec 02 11:00:00 web01 systemd[1]: Started getty@tty1.service - Getty on tty1.',
  'Started user@1000.service - User Manager for UID 1000.',
  'Started systemd-fsck@dev-disk-by\\x2duuid-1234.service.',
  'request took 12.5ms (p99 1.2s), retry in 1h2m3s',
  'uptime 3 days, 11:00:00, load average: 0.52, 0.58, 0.59',
  'build v1.2.3.4 deployed; library 2.14.1; kernel 6.1.0-18-amd64',
  'release 1.2.3.4.5 and 10.20.30 with openssl-3.0.11',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 applied',
  'container 4f66ad9a0b2e id deadbeefcafe00112233 started',
  'trace_id=5b8aa5a2d2c872e8321cf37308d69df2 span_id=051581bf3cb55c13',
  'uuid 123e4567-e89b-12d3-a456-426614174000 created',
  'open /var/lib/app/data.db: no such file or directory',
  'reading /etc/nginx/conf.d/default.conf line 12',
  'key=value mode=fast retries=3 timeout=30s',
  'max_tokens=256 token_count=5 tokens_used=17',
  'password_length=12 password_changed=true',
  'oauth=google author=alice authenticated=true',
  'PWD=/home/deploy OLDPWD=/srv/app',
  'Auth::login called from App::Http::Kernel',
  'std::vector<int> resized to 10',
  'mac 00:1a:2b:3c:4d:5e on eth0',
  'Bearer authentication enabled for /api',
  'Basic authentication required',
  'served icon@2x.png and logo@3x.jpg',
  'npm install lodash@4.17.21 @types/node@20.19.43',
  'listening on port 8080 with 4 workers',
  'GET /api/v1/items?page=2&limit=50 200 1532 bytes',
  'exit status 1/FAILURE after 00:00:05',
  'memory 512MiB of 2GiB (25%) used',
  'ratio 3:2:1 and time 12:30',
  'password: null',
  '"token": null, "auth": false',
  'query matched 0.0.0 rows and 1.2.3 versions',
  'sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',
  'temperature 21.5C humidity 40%',
  'user root from console',
  'bypass=true compass=north surpass=1',
  'reading --password-file /etc/app/pw and --token-file /run/t',
  'sent 3 cookies; cookie jar ready',
  'tests: pass=120 fail=0, summary pass: 42',
  'failed to parse cookie: invalid character',
  'Accepted publickey for deploy from [ipv4] port 51234 ssh2: RSA SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
  'loading templates from web/src/components/ApprovalCentre2/DecisionForm',
  '[email] [ipv4] [ipv6] [secret] [private-key] already masked',
];

describe('mask: what it hides', () => {
  for (const [input, expected] of masked) {
    it(JSON.stringify(input).slice(0, 70), () => {
      assert.equal(mask(input), expected);
    });
  }
  it('the corpus is large enough', () => {
    assert.ok(masked.length >= 40, `only ${masked.length} masking cases`);
  });
});

describe('mask: what it leaves alone', () => {
  for (const line of ordinary) {
    it(JSON.stringify(line).slice(0, 70), () => {
      assert.equal(mask(line), line);
    });
  }
  it('a git remote user@host is treated as an e-mail address (documented)', () => {
    assert.equal(mask('git@github.com:org/repo.git'), '[email]:org/repo.git');
  });
});

// Fragments that tend to interact: keys, separators, quotes, markers, addresses, tokens.
const fragment = fc.constantFrom(
  'password',
  'token',
  'auth',
  'Authorization',
  'api_key',
  'secret',
  'pwd',
  'PWD',
  'OAuth',
  'dbPassword',
  '=',
  ':',
  '::',
  ': ',
  ' = ',
  '"',
  "'",
  '\\"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  ',',
  ';',
  '&',
  '?',
  '/',
  '//',
  '@',
  ' ',
  '\t',
  '.',
  '-',
  '_',
  '%',
  '\n',
  'Bearer ',
  'Basic ',
  'Token ',
  'abcd1234efgh5678ijkl',
  'eyJhbGciOiJIUzI1NiJ9',
  '.eyJzdWIiOiIxIn0',
  '.sig',
  'AKIAIOSFODNN7EXAMPLE',
  GHP,
  'glpat-Abcdefghij0123456789',
  'xoxb-123456789012-abc',
  'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
  'john@example.com',
  'x@y.io',
  'getty@tty1.service',
  'https://',
  'u:p@',
  'host.example.com',
  '192.168.0.1',
  '10.0.0.',
  '255',
  '1.2.3.4',
  'v1',
  '::1',
  'fe80::',
  '2001:db8',
  ':ffff:',
  '%eth0',
  'ab',
  'cd',
  'ef',
  '0',
  '9',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----',
  'MIIEpAIBAAKCAQEA',
  '[email]',
  '[ipv4]',
  '[ipv6]',
  '[secret]',
  '[private-key]',
  'null',
  'true',
  'word',
  'é',
  '😀',
);
const logLine = fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(''));

describe('mask: idempotence', () => {
  it('mask(mask(x)) === mask(x) on random strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => mask(mask(text)) === mask(text)),
      { numRuns: 2000 },
    );
  });
  it('mask(mask(x)) === mask(x) on generated log lines', () => {
    fc.assert(
      fc.property(logLine, (text) => {
        const once = mask(text);
        assert.equal(mask(once), once);
      }),
      { numRuns: 5000 },
    );
  });
  it('generated credentials never survive', () => {
    const secretValue = fc.stringMatching(/^[A-Za-z0-9]{12,24}$/).filter((v) => /\d/.test(v) && /[A-Za-z]/.test(v));
    const shape = fc.constantFrom(
      (v: string) => `password=${v}`,
      (v: string) => `{"token": "${v}"}`,
      (v: string) => `Authorization: Bearer ${v}`,
      (v: string) => `https://admin:${v}@db.example.com/x`,
      (v: string) => `api-key: ${v}`,
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }).filter((s) => !/[\w"'\\]$/.test(s)),
        shape,
        secretValue,
        (prefix, build, v) => {
          const out = mask(`${prefix}${build(v)} end`);
          assert.ok(!out.includes(v), `${JSON.stringify(out)} still holds ${v}`);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

function streamed(text: string): string {
  const masker = new LineMasker();
  let out = '';
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (const line of lines) out += masker.push(line);
  return out + masker.end();
}

describe('LineMasker', () => {
  it('masks a private key spanning lines, with text before and after', () => {
    const text = `before\nx ${PEM} y\nafter\n`;
    assert.equal(streamed(text), 'before\nx [private-key] y\nafter\n');
  });
  it('masks an unterminated key to the end', () => {
    assert.equal(streamed('a\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\nmore\n'), 'a\n[private-key]');
  });
  it('gives the same result as mask() on the whole text', () => {
    const multiLine = fc.array(fc.oneof(fragment, fc.constant('\n'), fc.constant('\n')), { maxLength: 40 }).map((p) => p.join(''));
    fc.assert(
      fc.property(multiLine, (text) => {
        assert.equal(streamed(text), mask(text));
      }),
      { numRuns: 3000 },
    );
  });
});

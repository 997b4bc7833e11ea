// The client against real HTTP servers on 127.0.0.1. Every test but the first reaches them
// through the test-only allow list; the first shows that without it loopback is refused.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { STRICT_ADDRESS_POLICY, addressPolicy } from '../../src/capabilities/browser/address-policy.ts';
import { guardedConnector } from '../../src/capabilities/browser/connection-guard.ts';
import { USER_AGENT, createSafeFetch } from '../../src/capabilities/browser/safe-fetch.ts';
import { checkUrl, redirectRefusal } from '../../src/capabilities/browser/url-policy.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { LOOPBACK_ONLY, type TestServer, html, never, redirect, rejectsWith, scriptedResolver, startServer } from './support.ts';

const MiB = 1024 * 1024;

let server: TestServer;
let other: TestServer;

before(async () => {
  server = await startServer();
  other = await startServer();
  server.route('/', (_req, res) => html(res, '<title>Home</title><p>hello</p>'));
  server.route('/hop', (req, res) => {
    const n = Number(new URL(req.url!, 'http://x').searchParams.get('n'));
    if (n <= 0) html(res, '<title>Arrived</title>');
    else redirect(res, `/hop?n=${n - 1}`);
  });
  server.route('/image', (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64)));
  server.route('/untyped', (_req, res) => {
    res.removeHeader('content-type');
    res.writeHead(200).end('bytes');
  });
  server.route('/json', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  server.route('/latin1', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])));
  server.route('/meta-charset', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.concat([Buffer.from('<meta charset="iso-8859-2"><p>'), Buffer.from([0xa1, 0x71])])));
  server.route('/echo-headers', (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers)));
  server.route('/set-cookie', (_req, res) => res.writeHead(302, { location: '/echo-headers', 'set-cookie': 'session=abc; Path=/' }).end());
  server.route('/no-location', (_req, res) => res.writeHead(302).end());
});

after(async () => {
  await server.close();
  await other.close();
});

const loopbackFetch = (extra: Parameters<typeof createSafeFetch>[0] = {}) => createSafeFetch({ allowAddresses: LOOPBACK_ONLY, timeoutMs: 5000, ...extra });

describe('loopback needs the test-only allow list', () => {
  it('refuses 127.0.0.1 without the allow list, literal or by name, and never connects', async () => {
    const before = server.connections();
    const strict = createSafeFetch({ resolve: scriptedResolver({ 'app.test': [['127.0.0.1']] }) });
    await rejectsWith(strict(`${server.origin}/`, { signal: never, body: 'required' }), 'forbidden_address');
    await rejectsWith(strict(`http://app.test:${server.port}/`, { signal: never, body: 'required' }), 'forbidden_address');
    await rejectsWith(strict(`http://[::ffff:127.0.0.1]:${server.port}/`, { signal: never, body: 'required' }), 'forbidden_address');
    assert.equal(server.connections(), before);
  });

  it('the connector itself refuses a literal forbidden host, even if the URL check were skipped', async () => {
    const before = server.connections();
    const connect = guardedConnector({ resolve: scriptedResolver({}), policy: STRICT_ADDRESS_POLICY, connectTimeoutMs: 1000 });
    const error = await new Promise<Error | null>((resolve) => connect({ hostname: '127.0.0.1', protocol: 'http:', port: String(server.port) }, (...args) => resolve(args[0])));
    assert.ok(error instanceof CapabilityError && error.code === 'forbidden_address');
    assert.equal(server.connections(), before);
  });

  it('reaches the server with the allow list', async () => {
    const page = await loopbackFetch()(`${server.origin}/`, { signal: never, body: 'required' });
    assert.equal(page.status, 200);
    assert.equal(page.body, '<title>Home</title><p>hello</p>');
    assert.deepEqual(page.contentType, { mediaType: 'text/html', charset: 'utf-8' });
  });

  it('the allow list widens nothing else', async () => {
    const safeFetch = loopbackFetch({ resolve: scriptedResolver({ 'other.test': [['127.0.0.2']] }) });
    for (const url of [`http://127.0.0.2:${server.port}/`, `http://[::1]:${server.port}/`, `http://other.test:${server.port}/`]) {
      await rejectsWith(safeFetch(url, { signal: never, body: 'required' }), 'forbidden_address');
    }
  });
});

describe('requests', () => {
  it('sends the fixed user agent and no cookies or credentials, even after a Set-Cookie', async () => {
    const page = await loopbackFetch()(`${server.origin}/set-cookie`, { signal: never, body: 'required' });
    const headers = JSON.parse(page.body!) as Record<string, string>;
    assert.equal(headers['user-agent'], USER_AGENT);
    assert.equal(headers['user-agent'], 'Praxis/0.1 (read-only)');
    assert.equal(headers.cookie, undefined);
    assert.equal(headers.authorization, undefined);
    assert.equal(headers['proxy-authorization'], undefined);
  });

  it('drops the fragment and reports the canonical URL', async () => {
    const page = await loopbackFetch()(`http://127.1:${server.port}/#top`, { signal: never, body: 'required' });
    assert.equal(page.url, `${server.origin}/`);
  });

  it('decodes the declared charset, or one declared in a meta tag', async () => {
    const safeFetch = loopbackFetch();
    assert.equal((await safeFetch(`${server.origin}/latin1`, { signal: never, body: 'required' })).body, 'café');
    const sniffed = await safeFetch(`${server.origin}/meta-charset`, { signal: never, body: 'required' });
    assert.match(sniffed.body!, /<p>\u0104q$/);
  });

  it('reports a closed port as fetch_failed', async () => {
    const closed = await startServer();
    const origin = closed.origin;
    await closed.close();
    const error = await rejectsWith(loopbackFetch()(`${origin}/`, { signal: never, body: 'required' }), 'fetch_failed');
    assert.match(error.message, /ECONNREFUSED/);
    assert.equal(error.retrySafe, true);
  });
});

describe('content types', () => {
  it('refuses to read a body that is not text, HTML, XHTML or JSON', async () => {
    const safeFetch = loopbackFetch();
    await rejectsWith(safeFetch(`${server.origin}/image`, { signal: never, body: 'required' }), 'unsupported_content_type');
    await rejectsWith(safeFetch(`${server.origin}/untyped`, { signal: never, body: 'required' }), 'unsupported_content_type');
  });

  it('reports such a response without reading it when the body is optional', async () => {
    const page = await loopbackFetch()(`${server.origin}/image`, { signal: never, body: 'if-readable' });
    assert.equal(page.status, 200);
    assert.equal(page.contentType?.mediaType, 'image/png');
    assert.equal(page.body, null);
  });

  it('reads JSON as text', async () => {
    const page = await loopbackFetch()(`${server.origin}/json`, { signal: never, body: 'required' });
    assert.equal(page.body, '{"ok":true}');
  });
});

describe('redirects', () => {
  it('follows same-host redirects by hand and reports the final URL', async () => {
    const page = await loopbackFetch()(`${server.origin}/hop?n=3`, { signal: never, body: 'required' });
    assert.equal(page.finalUrl, `${server.origin}/hop?n=0`);
    assert.equal(page.redirects, 3);
  });

  it('follows 301, 303, 307 and 308 as well', async () => {
    for (const status of [301, 303, 307, 308]) {
      server.route(`/s${status}`, (_req, res) => redirect(res, '/', status));
      const page = await loopbackFetch()(`${server.origin}/s${status}`, { signal: never, body: 'required' });
      assert.equal(page.finalUrl, `${server.origin}/`, String(status));
    }
  });

  it('allows five hops and refuses the sixth', async () => {
    const safeFetch = loopbackFetch();
    assert.equal((await safeFetch(`${server.origin}/hop?n=5`, { signal: never, body: 'required' })).redirects, 5);
    await rejectsWith(safeFetch(`${server.origin}/hop?n=6`, { signal: never, body: 'required' }), 'too_many_redirects');
    await rejectsWith(loopbackFetch({ maxRedirects: 1 })(`${server.origin}/hop?n=2`, { signal: never, body: 'required' }), 'too_many_redirects');
  });

  it('returns a redirect without a Location as the final response', async () => {
    const page = await loopbackFetch()(`${server.origin}/no-location`, { signal: never, body: 'if-readable' });
    assert.equal(page.status, 302);
  });

  const refusedHops: [name: string, location: (port: number) => string, code: string][] = [
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/iam/', 'forbidden_address'],
    ['metadata in hex', () => 'http://0xa9fea9fe/', 'forbidden_address'],
    ['AWS IPv6 metadata', () => 'http://[fd00:ec2::254]/', 'forbidden_address'],
    ['IPv6 loopback', (port) => `http://[::1]:${port}/`, 'forbidden_address'],
    ['decimal loopback on another port', () => 'http://2130706433:6379/', 'cross_host_redirect'],
    ['another host name', (port) => `http://elsewhere.test:${port}/`, 'cross_host_redirect'],
    ['the same address on another port', () => `${other.origin}/`, 'cross_host_redirect'],
    ['a file', () => 'file:///etc/passwd', 'forbidden_scheme'],
    ['gopher', () => 'gopher://127.0.0.1:6379/_INFO', 'forbidden_scheme'],
    ['credentials on the same host', (port) => `http://admin:admin@127.0.0.1:${port}/`, 'credentials_in_url'],
    ['a blocked port', () => 'http://127.0.0.1:25/', 'forbidden_port'],
  ];
  for (const [name, location, code] of refusedHops) {
    it(`refuses a redirect to ${name} (${code})`, async () => {
      const path = `/to-${name.replace(/\W+/g, '-')}`;
      server.route(path, (_req, res) => redirect(res, location(server.port)));
      const resolve = scriptedResolver({ 'elsewhere.test': [['127.0.0.1']] });
      const otherBefore = other.requests.length;
      await rejectsWith(loopbackFetch({ resolve })(`${server.origin}${path}`, { signal: never, body: 'required' }), code);
      assert.deepEqual(resolve.calls, [], 'the other host is never even resolved');
      assert.equal(other.requests.length, otherBefore);
    });
  }

  it('allows an http→https upgrade on the same host and nothing looser', () => {
    const at = (url: string) => checkUrl(url, addressPolicy({ allowAddresses: ['8.8.8.8'] }));
    assert.equal(redirectRefusal(at('http://example.com/a'), at('https://example.com/b')), null);
    assert.equal(redirectRefusal(at('http://example.com/a'), at('http://example.com:80/b')), null);
    assert.match(redirectRefusal(at('https://example.com/a'), at('http://example.com/a'))!, /downgrades/);
    assert.match(redirectRefusal(at('http://example.com:8080/'), at('https://example.com/'))!, /8080/);
    assert.match(redirectRefusal(at('http://example.com/'), at('http://www.example.com/'))!, /leaves/);
    assert.match(redirectRefusal(at('http://example.com/'), at('http://example.com:8080/'))!, /port/);
    assert.match(redirectRefusal(at('http://8.8.8.8/'), at('http://example.com/'))!, /leaves/);
  });
});

describe('DNS rebinding', () => {
  it('resolves once per connection and connects only to the checked answer', async () => {
    const resolve = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['169.254.169.254'], ['10.0.0.1']] });
    const connectionsBefore = server.connections();
    const page = await loopbackFetch({ resolve })(`http://rebind.test:${server.port}/hop?n=2`, { signal: never, body: 'required' });
    assert.equal(page.status, 200);
    assert.deepEqual(resolve.calls, ['rebind.test'], 'the later, different answers are never asked for');
    assert.equal(server.connections() - connectionsBefore, 1, 'every hop used the one checked connection');
  });

  it('re-checks a fresh answer on the next connection and refuses the rebound address', async () => {
    const resolve = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['169.254.169.254']] });
    server.route('/close-then-hop', (_req, res) => res.writeHead(302, { location: '/', connection: 'close' }).end());
    const before = server.requests.length;
    await rejectsWith(loopbackFetch({ resolve })(`http://rebind.test:${server.port}/close-then-hop`, { signal: never, body: 'required' }), 'forbidden_address');
    assert.deepEqual(resolve.calls, ['rebind.test', 'rebind.test']);
    assert.deepEqual(
      server.requests.slice(before).map((r) => r.line),
      ['GET /close-then-hop'],
    );
  });

  it('refuses a second invocation whose answer has changed', async () => {
    const resolve = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['127.0.0.1', '10.1.2.3']] });
    const safeFetch = loopbackFetch({ resolve });
    assert.equal((await safeFetch(`http://rebind.test:${server.port}/`, { signal: never, body: 'required' })).status, 200);
    await rejectsWith(safeFetch(`http://rebind.test:${server.port}/`, { signal: never, body: 'required' }), 'forbidden_address');
  });
});

describe('body cap', () => {
  const cap = 256 * 1024;
  const capped = () => loopbackFetch({ maxBodyBytes: cap });
  const zeros = Buffer.alloc(8 * MiB, 'a');

  it('reads a body of exactly the cap', async () => {
    server.route('/exact', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(cap, 'x')));
    const page = await capped()(`${server.origin}/exact`, { signal: never, body: 'required' });
    assert.equal(page.body!.length, cap);
  });

  it('refuses a declared length over the cap before reading it', async () => {
    let wrote = 0;
    server.route('/declared', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(10 * MiB) });
      res.write('a little');
      wrote += 1;
      // Never finishes: only the header can have caused the refusal.
    });
    const error = await rejectsWith(capped()(`${server.origin}/declared`, { signal: never, body: 'required' }), 'body_too_large');
    assert.match(error.message, /declares 10485760 bytes/);
    assert.equal(wrote, 1);
  });

  it('stops a chunked body with no length once it passes the cap', async () => {
    let sent = 0;
    server.route('/endless', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'z');
      const pump = () => {
        while (!res.destroyed && sent < 64 * MiB) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await rejectsWith(capped()(`${server.origin}/endless`, { signal: never, body: 'required' }), 'body_too_large');
    assert.ok(sent < 16 * MiB, `the server was read far past the cap (${sent} bytes)`);
  });

  const bombs: [string, string, Buffer][] = [
    ['gzip', 'gzip', gzipSync(zeros, { level: 9 })],
    ['deflate', 'deflate', deflateSync(zeros, { level: 9 })],
    ['brotli', 'br', brotliCompressSync(zeros)],
  ];
  for (const [name, encoding, payload] of bombs) {
    it(`stops a small ${name} body that inflates past the cap`, async () => {
      assert.ok(payload.length < cap, 'the compressed body itself is under the cap');
      server.route(`/bomb-${name}`, (_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': encoding, 'content-length': String(payload.length) }).end(payload));
      const error = await rejectsWith(capped()(`${server.origin}/bomb-${name}`, { signal: never, body: 'required' }), 'body_too_large');
      assert.match(error.message, /decoded/);
    });
  }

  it('decodes a compressed body under the cap', async () => {
    const text = `<p>${'squeeze '.repeat(1000)}</p>`;
    server.route('/small-gzip', (_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(text)));
    const page = await capped()(`${server.origin}/small-gzip`, { signal: never, body: 'required' });
    assert.equal(page.body, text);
  });
});

describe('time cap', () => {
  it('gives up on a server that never answers', async () => {
    server.route('/silent', () => undefined);
    const started = Date.now();
    await rejectsWith(loopbackFetch({ timeoutMs: 300 })(`${server.origin}/silent`, { signal: never, body: 'required' }), 'timeout');
    assert.ok(Date.now() - started < 3000);
  });

  it('gives up on a body that trickles in', async () => {
    server.route('/trickle', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    await rejectsWith(loopbackFetch({ timeoutMs: 400 })(`${server.origin}/trickle`, { signal: never, body: 'required' }), 'timeout');
  });

  it('stops when the caller aborts', async () => {
    server.route('/slow', () => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await rejectsWith(loopbackFetch()(`${server.origin}/slow`, { signal: controller.signal, body: 'required' }), 'aborted');
  });
});

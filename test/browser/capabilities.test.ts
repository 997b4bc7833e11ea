// The three implementations against a local server: their observations carry exactly the
// fields each definition declares in `observes`, every outcome is low-trust, and the
// parameters they receive are the ones the registry's schema admits.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { builtinRegistry } from '../../src/capabilities/registry.ts';
import type { CapabilityOutcome } from '../../src/capabilities/implementation.ts';
import type { JsonObject } from '../../src/core/plan.ts';
import { LOOPBACK_ONLY, type TestServer, html, never, redirect, rejectsWith, scriptedResolver, startServer } from './support.ts';

let server: TestServer;
const registry = builtinRegistry();

before(async () => {
  server = await startServer();
  server.route('/', (_req, res) => html(res, `<title>Status page</title><h1>All systems go</h1><p>${'word '.repeat(50)}</p><a href="/a">A</a><a href="b">B</a><a href="/c">C</a>`));
  server.route('/moved', (_req, res) => redirect(res, '/', 301));
  server.route('/gone', (_req, res) => html(res, '<title>Not here</title>', 404));
  server.route('/down', (_req, res) => html(res, '<title>Oops</title>', 503));
  server.route('/pdf', (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7'));
  server.route('/plain', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('just text'));
});

after(() => server.close());

const implementations = () =>
  builtinImplementations({
    fetch: { allowAddresses: LOOPBACK_ONLY, resolve: scriptedResolver({ 'status.test': [['127.0.0.1']] }), timeoutMs: 5000 },
  });

async function invoke(name: string, params: JsonObject): Promise<CapabilityOutcome> {
  assert.deepEqual(registry.checkParams(name, params), [], 'the schema admits the parameters');
  const implementation = implementations()[name];
  assert.ok(implementation, `${name} is implemented`);
  const outcome = await implementation(params, { signal: never });
  const declared = [...registry.get(name)!.observes].sort();
  assert.deepEqual(Object.keys(outcome.observation).sort(), declared, `${name} observes exactly its declared fields`);
  assert.equal(outcome.lowTrust, true);
  assert.match(outcome.summary, /untrusted/);
  return outcome;
}

describe('browser capabilities', () => {
  it('targets the host of the URL', () => {
    assert.equal(registry.targetOf('browser.read', { url: `http://Status.Test:${server.port}/x` }), 'status.test');
  });

  it('navigate reports status, final URL, title and content type', async () => {
    const { observation, summary } = await invoke('browser.navigate', { url: `http://status.test:${server.port}/moved` });
    assert.deepEqual(observation, {
      url: `http://status.test:${server.port}/moved`,
      status: 200,
      final_url: `http://status.test:${server.port}/`,
      title: 'Status page',
      content_type: 'text/html',
    });
    assert.match(summary, /redirected to/);
    assert.ok(!summary.includes('Status page'), 'the summary never quotes the page');
  });

  it('navigate reports an error status and a type it does not read', async () => {
    const gone = await invoke('browser.navigate', { url: `${server.origin}/gone` });
    assert.equal(gone.observation.status, 404);
    assert.equal(gone.observation.title, 'Not here');
    const pdf = await invoke('browser.navigate', { url: `${server.origin}/pdf` });
    assert.equal(pdf.observation.content_type, 'application/pdf');
    assert.equal(pdf.observation.title, null);
  });

  it('read returns the title and the text, cut to max_chars', async () => {
    const full = await invoke('browser.read', { url: `${server.origin}/` });
    assert.equal(full.observation.title, 'Status page');
    assert.equal(full.observation.truncated, false);
    assert.match(String(full.observation.text), /^All systems go\n\nword word/);
    const cut = await invoke('browser.read', { url: `${server.origin}/`, max_chars: 14 });
    assert.deepEqual(cut.observation, { url: `${server.origin}/`, title: 'Status page', text: 'All systems go', truncated: true });
    const plain = await invoke('browser.read', { url: `${server.origin}/plain` });
    assert.deepEqual(plain.observation, { url: `${server.origin}/plain`, title: null, text: 'just text', truncated: false });
  });

  it('links lists absolute links, up to the limit', async () => {
    const all = await invoke('browser.links', { url: `${server.origin}/` });
    assert.deepEqual(all.observation, {
      url: `${server.origin}/`,
      links: [
        { href: `${server.origin}/a`, text: 'A' },
        { href: `${server.origin}/b`, text: 'B' },
        { href: `${server.origin}/c`, text: 'C' },
      ],
      count: 3,
    });
    const two = await invoke('browser.links', { url: `${server.origin}/`, limit: 2 });
    assert.equal(two.observation.count, 2);
    assert.match(two.summary, /2 of 3 links/);
  });

  it('read and links refuse error pages and unread types', async () => {
    const impl = implementations();
    await rejectsWith(impl['browser.read']!({ url: `${server.origin}/gone` }, { signal: never }), 'http_error');
    const down = await rejectsWith(impl['browser.links']!({ url: `${server.origin}/down` }, { signal: never }), 'http_error');
    assert.equal(down.retrySafe, true);
    await rejectsWith(impl['browser.read']!({ url: `${server.origin}/pdf` }, { signal: never }), 'unsupported_content_type');
  });

  it('refuses forbidden destinations whatever the capability', async () => {
    const strict = builtinImplementations();
    for (const name of ['browser.navigate', 'browser.read', 'browser.links']) {
      await rejectsWith(strict[name]!({ url: 'http://169.254.169.254/latest/meta-data/' }, { signal: never }), 'forbidden_address');
      await rejectsWith(strict[name]!({ url: `${server.origin}/` }, { signal: never }), 'forbidden_address');
    }
  });
});

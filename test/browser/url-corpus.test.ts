// The URL corpus: every entry is a URL, what DNS answers for its host (when it is a name), and
// whether the browser client must allow it or refuse it with a given code. Admission (URL
// policy, then resolution with every answer judged) runs for all entries; entries that must be
// refused also go through the real client, which must refuse them the same way without ever
// opening a connection.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STRICT_ADDRESS_POLICY } from '../../src/capabilities/browser/address-policy.ts';
import { checkedAddresses } from '../../src/capabilities/browser/connection-guard.ts';
import { createSafeFetch } from '../../src/capabilities/browser/safe-fetch.ts';
import { checkUrl } from '../../src/capabilities/browser/url-policy.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { never, rejectsWith, scriptedResolver } from './support.ts';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

interface Entry {
  url: string;
  /** The answer DNS gives for the URL's host name (omitted for IP literals). */
  dns?: string[];
  /** `allowed`, or the CapabilityError code of the refusal. */
  expect: string;
  why: string;
}

const CORPUS: Entry[] = [
  // Schemes other than http(s).
  { url: 'file:///etc/passwd', expect: 'forbidden_scheme', why: 'local file' },
  { url: 'ftp://example.com/pub/', expect: 'forbidden_scheme', why: 'ftp' },
  { url: 'gopher://example.com:70/_GET%20/', expect: 'forbidden_scheme', why: 'gopher request smuggling' },
  { url: 'data:text/html,<script>alert(1)</script>', expect: 'forbidden_scheme', why: 'data URL' },
  { url: 'javascript:alert(document.cookie)', expect: 'forbidden_scheme', why: 'javascript URL' },
  { url: 'ws://example.com/socket', expect: 'forbidden_scheme', why: 'websocket' },
  { url: 'dict://127.0.0.1:11211/stats', expect: 'forbidden_scheme', why: 'dict protocol' },
  { url: 'ldap://example.com/', expect: 'forbidden_scheme', why: 'ldap' },
  { url: 'blob:https://example.com/3c7a', expect: 'forbidden_scheme', why: 'blob URL' },
  // Credentials in the URL.
  { url: 'http://user:secret@example.com/', expect: 'credentials_in_url', why: 'user and password' },
  { url: 'http://user@example.com/', expect: 'credentials_in_url', why: 'user only' },
  { url: 'http://:secret@example.com/', expect: 'credentials_in_url', why: 'password only' },
  { url: 'http://@example.com/', expect: 'credentials_in_url', why: 'empty user information' },
  { url: 'https://example.com@169.254.169.254/', expect: 'credentials_in_url', why: 'host disguised as user name' },
  // Obfuscated IPv4 forms, canonicalised by the URL parser before the address check.
  { url: 'http://2130706433/', expect: 'forbidden_address', why: 'decimal 127.0.0.1' },
  { url: 'http://0x7f.1/', expect: 'forbidden_address', why: 'hex and short form of 127.0.0.1' },
  { url: 'http://127.1/', expect: 'forbidden_address', why: 'short form of 127.0.0.1' },
  { url: 'http://012.1.2.3/', expect: 'forbidden_address', why: 'octal 10.1.2.3' },
  { url: 'http://0x7f000001/', expect: 'forbidden_address', why: 'hex 127.0.0.1' },
  { url: 'http://017700000001/', expect: 'forbidden_address', why: 'octal 127.0.0.1' },
  { url: 'http://%31%32%37.0.0.1/', expect: 'forbidden_address', why: 'percent-encoded 127.0.0.1' },
  { url: 'http://127.0.0.1./', expect: 'forbidden_address', why: 'trailing dot' },
  { url: 'http://１２７.０.０.１/', expect: 'forbidden_address', why: 'full-width digits' },
  { url: 'HTTP://127.0.0.1:8080/', expect: 'forbidden_address', why: 'upper-case scheme, loopback' },
  { url: 'http://0/', expect: 'forbidden_address', why: '0.0.0.0' },
  { url: 'http://0.0.0.0:8080/', expect: 'forbidden_address', why: 'unspecified address' },
  { url: 'http://0xa9fea9fe/latest/meta-data/', expect: 'forbidden_address', why: 'hex metadata address' },
  // IPv4 ranges.
  { url: 'http://169.254.169.254/latest/meta-data/', expect: 'forbidden_address', why: 'cloud metadata' },
  { url: 'http://169.254.10.1/', expect: 'forbidden_address', why: 'link-local' },
  { url: 'http://10.0.0.1/', expect: 'forbidden_address', why: 'private 10/8' },
  { url: 'http://172.16.5.4/', expect: 'forbidden_address', why: 'private 172.16/12' },
  { url: 'http://192.168.1.1/', expect: 'forbidden_address', why: 'private 192.168/16' },
  { url: 'http://100.64.0.1/', expect: 'forbidden_address', why: 'carrier-grade NAT' },
  { url: 'http://100.100.100.200/', expect: 'forbidden_address', why: 'Alibaba metadata in CGNAT' },
  { url: 'http://192.0.0.192/', expect: 'forbidden_address', why: 'Oracle metadata' },
  { url: 'http://198.18.0.1/', expect: 'forbidden_address', why: 'benchmarking 198.18/15' },
  { url: 'http://192.0.2.1/', expect: 'forbidden_address', why: 'documentation TEST-NET-1' },
  { url: 'http://203.0.113.7/', expect: 'forbidden_address', why: 'documentation TEST-NET-3' },
  { url: 'http://224.0.0.1/', expect: 'forbidden_address', why: 'multicast' },
  { url: 'http://240.0.0.1/', expect: 'forbidden_address', why: 'reserved 240/4' },
  { url: 'http://255.255.255.255/', expect: 'forbidden_address', why: 'broadcast' },
  // IPv6 literals, including forms that carry an IPv4 address.
  { url: 'http://[::1]/', expect: 'forbidden_address', why: 'IPv6 loopback' },
  { url: 'http://[::]/', expect: 'forbidden_address', why: 'IPv6 unspecified' },
  { url: 'http://[::ffff:127.0.0.1]/', expect: 'forbidden_address', why: 'v4-mapped loopback' },
  { url: 'http://[::ffff:169.254.169.254]/', expect: 'forbidden_address', why: 'v4-mapped metadata' },
  { url: 'http://[::ffff:0:7f00:1]/', expect: 'forbidden_address', why: 'IPv4-translated (rfc6145)' },
  { url: 'http://[::127.0.0.1]/', expect: 'forbidden_address', why: 'deprecated IPv4-compatible form' },
  { url: 'http://[fd00:ec2::254]/latest/meta-data/', expect: 'forbidden_address', why: 'AWS IPv6 metadata' },
  { url: 'http://[fc00::1]/', expect: 'forbidden_address', why: 'unique-local' },
  { url: 'http://[fe80::1]/', expect: 'forbidden_address', why: 'IPv6 link-local' },
  { url: 'http://[fec0::1]/', expect: 'forbidden_address', why: 'site-local' },
  { url: 'http://[ff02::1]/', expect: 'forbidden_address', why: 'IPv6 multicast' },
  { url: 'http://[64:ff9b::7f00:1]/', expect: 'forbidden_address', why: 'NAT64 of 127.0.0.1' },
  { url: 'http://[64:ff9b::a9fe:a9fe]/', expect: 'forbidden_address', why: 'NAT64 of metadata' },
  { url: 'http://[64:ff9b::808:808]/', expect: 'forbidden_address', why: 'NAT64 is refused even for a public IPv4' },
  { url: 'http://[64:ff9b:1::a00:1]/', expect: 'forbidden_address', why: 'local-use NAT64 (RFC 8215)' },
  { url: 'http://[2002:7f00:1::]/', expect: 'forbidden_address', why: '6to4 of 127.0.0.1' },
  { url: 'http://[2002:a9fe:a9fe::1]/', expect: 'forbidden_address', why: '6to4 of metadata' },
  { url: 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', expect: 'forbidden_address', why: 'Teredo' },
  { url: 'http://[2001:db8::1]/', expect: 'forbidden_address', why: 'IPv6 documentation' },
  { url: 'http://[100::1]/', expect: 'forbidden_address', why: 'discard-only' },
  // Ports.
  { url: 'http://example.com:0/', expect: 'forbidden_port', why: 'port 0' },
  { url: 'http://example.com:25/', expect: 'forbidden_port', why: 'SMTP' },
  { url: 'http://example.com:22/', expect: 'forbidden_port', why: 'SSH' },
  { url: 'https://example.com:6667/', expect: 'forbidden_port', why: 'IRC' },
  // Not URLs at all.
  { url: 'not a url', expect: 'invalid_url', why: 'no scheme' },
  { url: 'http://', expect: 'invalid_url', why: 'no host' },
  { url: 'http://1.2.3.4.5/', expect: 'invalid_url', why: 'five numeric labels' },
  // The same site as pastebin.com, but a policy target no rule for pastebin.com matches.
  { url: 'https://pastebin.com./x', dns: [PUBLIC_V4], expect: 'invalid_url', why: 'a name with its root dot' },
  { url: 'https://PASTEBIN.com./', dns: [PUBLIC_V4], expect: 'invalid_url', why: 'a name with its root dot, upper case' },
  { url: 'http://[::1/', expect: 'invalid_url', why: 'unclosed bracket' },
  { url: `http://example.com/${'a'.repeat(2100)}`, expect: 'invalid_url', why: 'longer than the cap' },
  // Names, with simulated DNS answers.
  { url: 'http://localhost/', dns: ['127.0.0.1', '::1'], expect: 'forbidden_address', why: 'localhost' },
  { url: 'http://intranet.example/', dns: ['10.0.0.5'], expect: 'forbidden_address', why: 'name for a private address' },
  { url: 'http://127.0.0.1.nip.io/', dns: ['127.0.0.1'], expect: 'forbidden_address', why: 'wildcard DNS to loopback' },
  { url: 'http://meta.example/', dns: ['169.254.169.254'], expect: 'forbidden_address', why: 'name for metadata' },
  { url: 'http://mixed.example/', dns: [PUBLIC_V4, '10.0.0.5'], expect: 'forbidden_address', why: 'public and private mix' },
  { url: 'http://mixed6.example/', dns: [PUBLIC_V4, '::1'], expect: 'forbidden_address', why: 'public v4 with loopback v6' },
  { url: 'http://mixed-late.example/', dns: [PUBLIC_V4, PUBLIC_V6, '192.168.0.10'], expect: 'forbidden_address', why: 'private answer last' },
  { url: 'http://nat64.example/', dns: ['64:ff9b::a9fe:a9fe'], expect: 'forbidden_address', why: 'name for NAT64 metadata' },
  { url: 'http://mapped.example/', dns: ['::ffff:10.0.0.1'], expect: 'forbidden_address', why: 'name for a v4-mapped private address' },
  { url: 'http://aws6.example/', dns: ['fd00:ec2::254'], expect: 'forbidden_address', why: 'name for AWS IPv6 metadata' },
  { url: 'http://cgnat.example/', dns: ['100.64.1.1'], expect: 'forbidden_address', why: 'name for CGNAT' },
  { url: 'http://scoped.example/', dns: ['fe80::1%eth0'], expect: 'forbidden_address', why: 'scoped link-local answer' },
  { url: 'http://odd.example/', dns: ['0177.0.0.1'], expect: 'forbidden_address', why: 'non-canonical answer text' },
  { url: 'http://nxdomain.example/', dns: [], expect: 'fetch_failed', why: 'does not resolve' },
  // Allowed: globally routable unicast destinations.
  { url: 'http://8.8.8.8/', expect: 'allowed', why: 'public IPv4 literal' },
  { url: 'https://1.1.1.1/dns-query', expect: 'allowed', why: 'public IPv4 literal, https' },
  { url: 'http://0x08080808/', expect: 'allowed', why: 'hex form of a public address' },
  { url: 'http://[2606:4700:4700::1111]/', expect: 'allowed', why: 'public IPv6 literal' },
  { url: 'http://[::ffff:8.8.8.8]/', expect: 'allowed', why: 'v4-mapped public address' },
  { url: 'http://example.com/', dns: [PUBLIC_V4], expect: 'allowed', why: 'public name' },
  { url: 'https://example.com/path?q=1#frag', dns: [PUBLIC_V4, PUBLIC_V6], expect: 'allowed', why: 'public v4 and v6' },
  { url: 'http://example.com:8080/', dns: [PUBLIC_V4], expect: 'allowed', why: 'unusual but unblocked port' },
  { url: 'https://bücher.example/', dns: [PUBLIC_V4], expect: 'allowed', why: 'internationalised name' },
];

function hostOf(url: string): string {
  return new URL(url).hostname;
}

function resolverFor(entries: Entry[]) {
  const script: Record<string, string[][]> = {};
  for (const entry of entries) if (entry.dns !== undefined) script[hostOf(entry.url)] = [entry.dns];
  return scriptedResolver(script);
}

/** What the client decides before connecting: the URL rules, then every resolved address. */
async function admission(entry: Entry): Promise<string> {
  try {
    const checked = checkUrl(entry.url, STRICT_ADDRESS_POLICY);
    if (checked.literalAddress === null) {
      await checkedAddresses(checked.host, resolverFor([entry]), STRICT_ADDRESS_POLICY);
    }
    return 'allowed';
  } catch (error) {
    if (error instanceof CapabilityError) return error.code;
    throw error;
  }
}

describe('URL corpus', () => {
  it('has at least 50 entries, each URL once', () => {
    assert.ok(CORPUS.length >= 50, `only ${CORPUS.length} entries`);
    assert.equal(new Set(CORPUS.map((e) => e.url)).size, CORPUS.length);
  });

  for (const entry of CORPUS) {
    it(`${entry.expect}: ${entry.why} (${entry.url.slice(0, 70)})`, async () => {
      assert.equal(await admission(entry), entry.expect);
    });
  }

  it('the real client refuses every refused entry the same way, without connecting', async () => {
    const refused = CORPUS.filter((e) => e.expect !== 'allowed');
    const resolve = resolverFor(refused);
    // A short time cap: a wrongly admitted private address would show up as a timeout.
    const safeFetch = createSafeFetch({ resolve, timeoutMs: 2000, connectTimeoutMs: 1000 });
    for (const entry of refused) {
      await rejectsWith(safeFetch(entry.url, { signal: never, body: 'if-readable' }), entry.expect);
    }
  });
});

describe('obfuscated IPv4 hosts', () => {
  const forms: [string, string][] = [
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://012.1.2.3/', '10.1.2.3'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0xa9.0376.43518/', '169.254.169.254'],
    ['http://0x08080808/', '8.8.8.8'],
  ];
  for (const [url, dotted] of forms) {
    it(`${url} is read as ${dotted} and judged as that address`, () => {
      const strictVerdict = (() => {
        try {
          return checkUrl(url).literalAddress;
        } catch (error) {
          return (error as CapabilityError).code;
        }
      })();
      const lenient = checkUrl(url, { allowed: new Set([dotted]) });
      assert.equal(lenient.host, dotted);
      assert.equal(lenient.literalAddress, dotted);
      assert.equal(strictVerdict, dotted === '8.8.8.8' ? '8.8.8.8' : 'forbidden_address');
    });
  }
});

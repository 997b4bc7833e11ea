import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addressPolicy, addressRefusal, canonicalAddress, isAddressAllowed } from '../../src/capabilities/browser/address-policy.ts';
import { checkUrl } from '../../src/capabilities/browser/url-policy.ts';

const refused: [address: string, reason: RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['10.20.30.40', /private/],
  ['172.31.255.255', /private/],
  ['192.168.0.1', /private/],
  ['169.254.169.254', /metadata/],
  ['169.254.170.2', /container credentials/],
  ['169.254.0.1', /link-local/],
  ['100.64.0.0', /carrier-grade NAT/],
  ['100.127.255.255', /carrier-grade NAT/],
  ['100.100.100.200', /Alibaba/],
  ['198.18.0.0', /benchmarking/],
  ['198.19.255.255', /benchmarking/],
  ['192.0.2.55', /documentation/],
  ['198.51.100.1', /documentation/],
  ['203.0.113.1', /documentation/],
  ['192.88.99.1', /reserved/],
  ['224.0.0.251', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /broadcast/],
  ['::1', /loopback/],
  ['::', /unspecified/],
  ['::ffff:127.0.0.1', /maps to 127\.0\.0\.1.*loopback/],
  ['::ffff:a9fe:a9fe', /maps to 169\.254\.169\.254/],
  ['::ffff:0:a00:1', /IPv4-translated.*embeds 10\.0\.0\.1/],
  ['::7f00:1', /outside the global unicast block/],
  ['fd00:ec2::254', /AWS instance metadata/],
  ['fd12:3456::1', /unique-local/],
  ['fe80::1', /link-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['64:ff9b::7f00:1', /NAT64.*embeds 127\.0\.0\.1/],
  ['64:ff9b::808:808', /NAT64.*embeds 8\.8\.8\.8/],
  ['64:ff9b:1::a00:1', /NAT64/],
  ['2002:7f00:1::', /6to4.*embeds 127\.0\.0\.1/],
  ['2002:808:808::1', /6to4/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo.*embeds 192\.0\.2\.45/],
  ['2001:db8::1', /reserved/],
  ['2001:2::1', /benchmarking/],
  ['100::1', /discard/],
  ['5f00::1', /segment routing/],
  ['4000::1', /outside the global unicast block/],
  ['fe80::1%eth0', /scope/],
  ['0177.0.0.1', /not a canonical|not an IP/],
  ['example.com', /not an IP address/],
  ['', /not an IP address/],
];

const allowed = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.0', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'];

describe('address policy', () => {
  for (const [address, reason] of refused) {
    it(`refuses ${address || '(empty)'}`, () => {
      const why = addressRefusal(address);
      assert.ok(why !== null, `${address} was allowed`);
      assert.match(why, reason);
    });
  }

  for (const address of allowed) {
    it(`allows ${address}`, () => assert.equal(addressRefusal(address), null));
  }

  it('refuses loopback by default, allows it only when a test lists it', () => {
    assert.equal(isAddressAllowed('127.0.0.1'), false);
    const testPolicy = addressPolicy({ allowAddresses: ['127.0.0.1'] });
    assert.equal(isAddressAllowed('127.0.0.1', testPolicy), true);
    assert.equal(isAddressAllowed('::ffff:127.0.0.1', testPolicy), true, 'the mapped form is the same address');
    // The allow list is exact addresses, not ranges.
    for (const other of ['127.0.0.2', '::1', '10.0.0.1', '169.254.169.254', '64:ff9b::7f00:1']) {
      assert.equal(isAddressAllowed(other, testPolicy), false, other);
    }
  });

  it('rejects an allow list entry that is not an address', () => {
    assert.throws(() => addressPolicy({ allowAddresses: ['localhost'] }), /not an IP address/);
    assert.throws(() => addressPolicy({ allowAddresses: ['127.0.0.0/8'] }), /not an IP address/);
  });

  it('canonicalises addresses', () => {
    assert.equal(canonicalAddress('::1'), '0:0:0:0:0:0:0:1');
    assert.equal(canonicalAddress('127.0.0.1'), '127.0.0.1');
    assert.equal(canonicalAddress('127.1'), null);
  });
});

const octet = fc.integer({ min: 0, max: 255 });

/** IPv4 addresses inside a CIDR block, as dotted text. */
function inBlock(base: [number, number, number, number], bits: number) {
  return fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => {
    const n = ((base[0] << 24) >>> 0) + (base[1] << 16) + (base[2] << 8) + base[3] + offset;
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
  });
}

const forbiddenV4 = fc.oneof(
  inBlock([127, 0, 0, 0], 8),
  inBlock([10, 0, 0, 0], 8),
  inBlock([172, 16, 0, 0], 12),
  inBlock([192, 168, 0, 0], 16),
  inBlock([169, 254, 0, 0], 16),
  inBlock([100, 64, 0, 0], 10),
  inBlock([0, 0, 0, 0], 8),
  inBlock([224, 0, 0, 0], 4),
  inBlock([240, 0, 0, 0], 4),
  inBlock([198, 18, 0, 0], 15),
);

function toHex(v4: string): [string, string] {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

describe('address policy properties', () => {
  it('refuses every address of the forbidden IPv4 blocks, in every IPv6 wrapping', () => {
    fc.assert(
      fc.property(forbiddenV4, (v4) => {
        const [hi, lo] = toHex(v4);
        for (const form of [v4, `::ffff:${v4}`, `64:ff9b::${hi}:${lo}`, `64:ff9b:1::${hi}:${lo}`, `2002:${hi}:${lo}::1`, `::${hi}:${lo}`]) {
          assert.notEqual(addressRefusal(form), null, form);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('judges every numeric URL host form exactly like its dotted address', () => {
    fc.assert(
      fc.property(octet, octet, octet, octet, (a, b, c, d) => {
        const dotted = `${a}.${b}.${c}.${d}`;
        const n = (((a << 24) >>> 0) + (b << 16) + (c << 8) + d) >>> 0;
        const forms = [`http://${n}/`, `http://0x${n.toString(16)}/`, `http://0${n.toString(8)}/`, `http://${a}.${(b << 16) + (c << 8) + d}/`];
        const expected = addressRefusal(dotted) === null;
        for (const url of forms) {
          let admitted: boolean;
          try {
            admitted = checkUrl(url).literalAddress === dotted;
          } catch {
            admitted = false;
          }
          assert.equal(admitted, expected, `${url} (${dotted})`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

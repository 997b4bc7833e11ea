// Which IP addresses the browser capabilities may open a connection to. The rule is narrow on
// purpose: a globally routable unicast address, nothing else. Everything that reaches the
// operator's own network (loopback, private and unique-local ranges, link-local including
// cloud metadata, carrier-grade NAT) or that is not a real destination (multicast, reserved,
// documentation, benchmarking) is refused, and so are IPv6 forms that smuggle an IPv4 address
// through a translator or tunnel.
//
// Tests need to reach servers they start on 127.0.0.1; they do so through an explicit allow
// list that nothing in production code ever fills.

import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

export interface AddressPolicyOptions {
  /**
   * Exact addresses that may be contacted even though the rule refuses them. Meant for tests
   * that run local servers; empty unless a caller passes it.
   */
  allowAddresses?: readonly string[];
}

export interface AddressPolicy {
  /** Canonical forms of the explicitly allowed addresses. */
  readonly allowed: ReadonlySet<string>;
}

/** Well-known instance metadata endpoints, named in refusals so the reason is obvious. */
const METADATA_ENDPOINTS: ReadonlyMap<string, string> = new Map([
  ['169.254.169.254', 'cloud instance metadata'],
  ['169.254.170.2', 'container credentials endpoint'],
  ['fd00:ec2::254', 'AWS instance metadata (IPv6)'],
  ['100.100.100.200', 'Alibaba Cloud instance metadata'],
  ['192.0.0.192', 'Oracle Cloud instance metadata'],
]);

/** Prefixes whose lower 32 bits carry an IPv4 address, for a clearer refusal message. */
const EMBEDDING_RANGES: ReadonlySet<string> = new Set(['rfc6052', 'rfc6145', 'ipv4Mapped']);

// Only 2000::/3 is delegated for global unicast; ipaddr.js calls anything outside its named
// ranges "unicast", including IPv4-compatible ::a.b.c.d and unallocated space, so the
// allocation is checked as well.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

export function addressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowed = new Set<string>();
  for (const entry of options.allowAddresses ?? []) {
    const canonical = canonicalAddress(entry);
    if (canonical === null) throw new Error(`allowAddresses: ${JSON.stringify(entry)} is not an IP address`);
    allowed.add(canonical);
  }
  return { allowed };
}

/** The default policy: no exceptions at all. */
export const STRICT_ADDRESS_POLICY: AddressPolicy = addressPolicy();

/**
 * Null when the address may be contacted, otherwise why not. Accepts the canonical textual
 * forms a resolver or the URL parser produces (dotted-decimal IPv4, IPv6 without a zone);
 * anything else is refused rather than guessed at.
 */
export function addressRefusal(address: string, policy: AddressPolicy = STRICT_ADDRESS_POLICY): string | null {
  if (address.includes('%')) return `${address} carries an interface scope`;
  const family = isIP(address);
  if (family === 4) {
    // net.isIP already insists on four decimal parts; reject leading zeros as well so the
    // string means the same thing to every parser.
    if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return `${address} is not a canonical IPv4 address`;
    return ipv4Refusal(ipaddr.IPv4.parse(address), policy);
  }
  if (family === 6) return ipv6Refusal(ipaddr.IPv6.parse(address), policy);
  return `${JSON.stringify(address)} is not an IP address`;
}

export function isAddressAllowed(address: string, policy: AddressPolicy = STRICT_ADDRESS_POLICY): boolean {
  return addressRefusal(address, policy) === null;
}

function ipv4Refusal(ip: ipaddr.IPv4, policy: AddressPolicy): string | null {
  const text = ip.toString();
  if (policy.allowed.has(text)) return null;
  const metadata = METADATA_ENDPOINTS.get(text);
  if (metadata !== undefined) return `${text} is the ${metadata} address`;
  const range = ip.range();
  if (range !== 'unicast') return `${text} is in the ${describeRange(range)} range`;
  return null;
}

function ipv6Refusal(ip: ipaddr.IPv6, policy: AddressPolicy): string | null {
  const text = ip.toNormalizedString();
  const short = ip.toString();
  if (policy.allowed.has(text)) return null;
  const range = ip.range();
  // A v4-mapped address is a connection to the IPv4 address it carries: judge that one.
  if (range === 'ipv4Mapped') {
    const inner = ip.toIPv4Address();
    const why = ipv4Refusal(inner, policy);
    return why === null ? null : `${short} maps to ${inner.toString()}, and ${why}`;
  }
  const metadata = METADATA_ENDPOINTS.get(short);
  if (metadata !== undefined) return `${short} is the ${metadata} address`;
  if (range !== 'unicast') {
    const embedded = embeddedIPv4(ip, range);
    const carrying = embedded === null ? '' : ` (it embeds ${embedded})`;
    return `${short} is in the ${describeRange(range)} range${carrying}`;
  }
  if (!ip.match(GLOBAL_UNICAST_V6)) return `${short} is outside the global unicast block 2000::/3`;
  return null;
}

/** The IPv4 address a translation or tunnelling prefix carries, for messages only. */
function embeddedIPv4(ip: ipaddr.IPv6, range: string): string | null {
  const p = ip.parts;
  if (EMBEDDING_RANGES.has(range)) return `${p[6]! >> 8}.${p[6]! & 0xff}.${p[7]! >> 8}.${p[7]! & 0xff}`;
  if (range === '6to4') return `${p[1]! >> 8}.${p[1]! & 0xff}.${p[2]! >> 8}.${p[2]! & 0xff}`;
  if (range === 'teredo') {
    // The client address is stored inverted in the last 32 bits.
    const a = p[6]! ^ 0xffff;
    const b = p[7]! ^ 0xffff;
    return `${a >> 8}.${a & 0xff}.${b >> 8}.${b & 0xff}`;
  }
  return null;
}

const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved, documentation or benchmarking',
  as112: 'AS112 sink',
  amt: 'AMT relay',
  uniqueLocal: 'unique-local (fc00::/7)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  discard: 'discard-only (100::/64)',
  rfc6145: 'IPv4-translated (::ffff:0:0:0/96)',
  rfc6052: 'NAT64 (64:ff9b::/96, 64:ff9b:1::/48)',
  '6to4': '6to4 (2002::/16)',
  teredo: 'Teredo (2001::/32)',
  benchmarking: 'benchmarking (2001:2::/48)',
  as112v6: 'AS112 sink',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'DRIP entity tag',
  segmentRouting: 'segment routing (5f00::/16)',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? range;
}

/** The canonical text of an IP address (dotted IPv4, full IPv6), or null if it is not one. */
export function canonicalAddress(address: string): string | null {
  const family = isIP(address);
  if (family === 4 && ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address).toString();
  if (family === 6 && !address.includes('%')) return ipaddr.IPv6.parse(address).toNormalizedString();
  return null;
}

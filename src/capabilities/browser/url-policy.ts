// Which URLs the browser capabilities may request, decided before any connection is opened.
// Parsing is the WHATWG URL parser's, the same one undici uses, so what is checked is what is
// fetched: it already rewrites obfuscated IPv4 hosts (`2130706433`, `0x7f.1`, `127.1`,
// `012.1.2.3`) to dotted decimal, which lets a literal host be judged by the address policy
// here. Connections to literal addresses never go through a resolver, so this is the only
// place (besides the connector's own guard) where such a host is checked.

import { FQDN_DOT, MAX_URL_LENGTH } from '../formats.ts';
import { CapabilityError } from '../implementation.ts';
import { type AddressPolicy, STRICT_ADDRESS_POLICY, addressRefusal } from './address-policy.ts';
import { isIP } from 'node:net';

export { MAX_URL_LENGTH };

/** A URL that passed every check that can be made without the network. */
export interface CheckedUrl {
  readonly url: URL;
  /** The host name without IPv6 brackets, lower-case. */
  readonly host: string;
  /** The port a connection will use, default ports filled in. */
  readonly port: number;
  /** Set when the host is an IP literal (already judged by the address policy). */
  readonly literalAddress: string | null;
}

// Ports the Fetch standard blocks for every browser: mail, file transfer, remote shells,
// directory and IRC services that a crafted HTTP request could talk to. undici refuses them
// too, but only with a vague network error; naming them here gives a clear refusal.
const BLOCKED_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512,
  513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
  6697, 10080,
]);

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * Checks a URL (absolute, or relative to `base`, as a redirect's Location is) and returns it
 * parsed, or throws a CapabilityError naming the first rule it breaks.
 */
export function checkUrl(input: string, policy: AddressPolicy = STRICT_ADDRESS_POLICY, base?: URL): CheckedUrl {
  if (input.length > MAX_URL_LENGTH) {
    throw new CapabilityError('invalid_url', `the URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new CapabilityError('invalid_url', `${JSON.stringify(clip(input))} is not a valid URL`);
  }
  if (url.href.length > MAX_URL_LENGTH) {
    throw new CapabilityError('invalid_url', `the URL is longer than ${MAX_URL_LENGTH} characters once resolved`);
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) {
    throw new CapabilityError('forbidden_scheme', `the scheme "${url.protocol.slice(0, 20)}" is not allowed; only http and https are`);
  }
  if (url.username !== '' || url.password !== '' || hasEmptyUserInfo(input, base)) {
    throw new CapabilityError('credentials_in_url', 'the URL carries user information (credentials); they are never sent');
  }
  if (url.hostname === '') throw new CapabilityError('invalid_url', 'the URL has no host');
  if (url.hostname.endsWith('.')) throw new CapabilityError('invalid_url', FQDN_DOT);

  const port = url.port === '' ? defaultPort : Number(url.port);
  if (BLOCKED_PORTS.has(port)) {
    throw new CapabilityError('forbidden_port', `port ${port} may not be contacted`);
  }

  const host = unbracket(url.hostname.toLowerCase());
  let literalAddress: string | null = null;
  if (isIP(host) !== 0) {
    const why = addressRefusal(host, policy);
    if (why !== null) throw new CapabilityError('forbidden_address', `the URL's host ${url.hostname} may not be contacted: ${why}`);
    literalAddress = host;
  }
  // The fragment never leaves the client; dropping it keeps final URLs comparable.
  url.hash = '';
  return { url, host, port, literalAddress };
}

/**
 * Null when following a redirect from `from` to `to` stays on the same site, otherwise why
 * not. The host name and port must stay the same; the only change of scheme allowed is an
 * upgrade from http to https on the default ports.
 */
export function redirectRefusal(from: CheckedUrl, to: CheckedUrl): string | null {
  if (to.host !== from.host) return `the redirect leaves ${from.host} for ${to.host}`;
  const sameScheme = to.url.protocol === from.url.protocol;
  if (sameScheme) {
    return to.port === from.port ? null : `the redirect moves from port ${from.port} to port ${to.port}`;
  }
  if (from.url.protocol === 'https:') return 'the redirect downgrades from https to http';
  if (from.port === 80 && to.port === 443) return null;
  return `the redirect moves from ${from.url.protocol}//…:${from.port} to ${to.url.protocol}//…:${to.port}`;
}

/** `http://@host/` parses with an empty user name; refuse the `@` anyway, it has no use. */
function hasEmptyUserInfo(input: string, base: URL | undefined): boolean {
  const absolute = /^[a-z][a-z0-9+.-]*:[\\/]*([^\\/?#]*)/i.exec(input);
  const authority = absolute?.[1] ?? (base !== undefined ? /^[\\/]{2}([^\\/?#]*)/.exec(input)?.[1] : undefined);
  return authority !== undefined && authority.includes('@');
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

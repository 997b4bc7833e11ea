// Which requests the daemon answers at all. A page on another site cannot read or send to the
// daemon directly, but with DNS rebinding its own name (rebind.evil.example) comes to resolve to
// 127.0.0.1, and the browser then sends "same-origin" requests to the daemon with that name in
// `Host`. So:
// - `Host` must name the daemon: a loopback address or `localhost`, or the address the
//   connection actually reached, each with the port it reached (`127.0.0.1:7300`,
//   `[::1]:7300`, `localhost:7300`), or a name listed in the configuration (`allowedHosts`,
//   any port: a reverse proxy in front may use its own). Anything else is refused with 403
//   `host_not_allowed` before authentication, so even a daemon in anonymous mode tells such a
//   page nothing and does nothing for it.
// - A request that changes state and carries `Origin` must come from the console's own origin,
//   the scheme and the very `Host` it was sent to; anything else (another site, `null`) is 403
//   `origin_not_allowed`. Clients that are not browsers send no `Origin` and are unaffected.

import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpRefusal } from './errors.ts';

const CHANGES_STATE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WILDCARD_ADDRESSES = new Set(['0.0.0.0', '::']);

export interface HostPolicy {
  /** Names (or addresses) served on any port, from the configuration; compared case-insensitively. */
  allowedHosts?: readonly string[];
}

interface HostValue {
  /** Lower case, IPv6 without brackets, no trailing dot. */
  host: string;
  port: number | null;
}

/** `name:port`, `[v6]:port`, `1.2.3.4` → its parts; null when it is not a host value at all. */
export function parseHostHeader(value: string): HostValue | null {
  const text = value.trim().toLowerCase();
  let host: string;
  let port: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return null;
    host = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return null;
    port = rest === '' ? undefined : rest.slice(1);
    if (isIP(host) !== 6) return null;
  } else {
    const parts = text.split(':');
    if (parts.length > 2) return null;
    host = parts[0]!;
    port = parts[1];
  }
  host = host.replace(/\.$/, '');
  if (host === '' || !/^[a-z0-9.:_-]+$/.test(host)) return null;
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return null;
  return { host, port: port === undefined ? null : Number(port) };
}

function bare(address: string): string {
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** Why the request's Host is not one this daemon serves, or null when it is. */
export function hostRefusal(request: Pick<FastifyRequest, 'headers' | 'socket'>, configured: ReadonlySet<string>): string | null {
  const header = request.headers.host;
  if (typeof header !== 'string' || header === '') return 'the request names no Host';
  const parsed = parseHostHeader(header);
  if (!parsed) return `"${header}" is not a host name or address`;
  if (configured.has(parsed.host)) return null;
  const local = request.socket?.localAddress ? bare(request.socket.localAddress) : null;
  if (!isLoopback(parsed.host) && parsed.host !== local) {
    return `this daemon does not serve "${parsed.host}": use localhost or its address, or add the name to allowedHosts (PRAXIS_ALLOWED_HOSTS)`;
  }
  // Through a socket (not an in-process injection) the port must be the one reached.
  const localPort = request.socket?.localPort;
  if (typeof localPort === 'number' && localPort > 0 && (parsed.port ?? 80) !== localPort) {
    return `this daemon serves port ${localPort}, not ${parsed.port ?? 80}`;
  }
  return null;
}

/** Why a state-changing request's Origin is not the console's own, or null when it may go on. */
export function originRefusal(request: Pick<FastifyRequest, 'headers' | 'method'>): string | null {
  if (!CHANGES_STATE.has(request.method)) return null;
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  let url: URL;
  try {
    url = new URL(String(origin));
  } catch {
    return `the request comes from the origin "${String(origin)}", not from the console`;
  }
  const host = String(request.headers.host ?? '').toLowerCase();
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host.toLowerCase() === host) return null;
  return `the request comes from ${url.origin === 'null' ? 'an opaque origin' : url.origin}, not from the console at this address`;
}

export function guardHosts(app: FastifyInstance, policy: HostPolicy = {}): void {
  const configured = new Set(
    (policy.allowedHosts ?? []).flatMap((entry) => {
      const parsed = isIP(entry.trim()) === 6 ? { host: entry.trim().toLowerCase() } : parseHostHeader(entry);
      return parsed && !WILDCARD_ADDRESSES.has(parsed.host) ? [bare(parsed.host)] : [];
    }),
  );
  app.addHook('onRequest', async (request) => {
    const host = hostRefusal(request, configured);
    if (host) throw new HttpRefusal('host_not_allowed', host, [{ code: 'host_not_allowed', path: 'headers.host', message: host }]);
    const origin = originRefusal(request);
    if (origin) throw new HttpRefusal('origin_not_allowed', origin, [{ code: 'origin_not_allowed', path: 'headers.origin', message: origin }]);
  });
}

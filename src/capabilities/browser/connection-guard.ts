// The network half of the SSRF defence. A host name is resolved exactly once per connection,
// every address in the answer is judged, and the socket is handed those judged addresses, so
// nothing can re-resolve the name between the check and the connect (DNS rebinding). A single
// forbidden address refuses the whole answer: a name that resolves to a public and a private
// address is treated as hostile, not as "use the public one".
//
// Three guards stack up: checkUrl() judges IP literals before a request starts; the connector
// judges literal hosts again (net.connect skips lookup for them) and resolves names through
// the guarded lookup; after connecting, the peer address of the socket is judged once more.

import { promises as dns, type LookupAddress } from 'node:dns';
import { type LookupFunction, type Socket, isIP } from 'node:net';
import { buildConnector } from 'undici';
import { CapabilityError } from '../implementation.ts';
import { type AddressPolicy, addressRefusal } from './address-policy.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Injectable so tests can script DNS answers. */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) => {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family }));
};

/** At most this many addresses are considered; a longer answer is suspicious in itself. */
const MAX_ANSWERS = 32;

/**
 * Resolves `host` and returns its addresses only if every one of them is allowed. Throws a
 * CapabilityError otherwise: `forbidden_address` for a refused address, `fetch_failed` when
 * the name does not resolve.
 */
export async function checkedAddresses(host: string, resolve: Resolver, policy: AddressPolicy): Promise<ResolvedAddress[]> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CapabilityError('fetch_failed', `${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`, true);
  }
  if (answers.length === 0) throw new CapabilityError('fetch_failed', `${host} has no addresses`, true);
  if (answers.length > MAX_ANSWERS) throw new CapabilityError('forbidden_address', `${host} resolves to more than ${MAX_ANSWERS} addresses`);
  const checked: ResolvedAddress[] = [];
  for (const answer of answers) {
    const why = addressRefusal(answer.address, policy);
    if (why !== null) throw new CapabilityError('forbidden_address', `${host} resolves to ${answer.address}: ${why}`);
    checked.push({ address: answer.address, family: isIP(answer.address) });
  }
  return checked;
}

/**
 * A `lookup` for net/tls.connect that answers only with checked addresses. Node calls it with
 * `all: true` when it races address families, and expects a single address otherwise.
 */
export function guardedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, resolve, policy).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          callback(new CapabilityError('fetch_failed', `${hostname} has no IPv${family} address`, true), '', 0);
        } else if (options.all === true) {
          callback(
            null,
            usable.map((a): LookupAddress => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

export interface ConnectorOptions {
  resolve: Resolver;
  policy: AddressPolicy;
  /** Time allowed for one TCP (and TLS) connection, in milliseconds. */
  connectTimeoutMs: number;
}

/** An undici connector whose every connection is made to a checked address. */
export function guardedConnector(options: ConnectorOptions): buildConnector.connector {
  const base = buildConnector({ lookup: guardedLookup(options.resolve, options.policy), timeout: options.connectTimeoutMs });
  return (target, callback) => {
    const host = unbracket(target.hostname);
    if (isIP(host) !== 0) {
      const why = addressRefusal(host, options.policy);
      if (why !== null) {
        callback(new CapabilityError('forbidden_address', `${host} may not be contacted: ${why}`), null);
        return;
      }
    }
    base(target, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const why = peerRefusal(socket, options.policy);
      if (why !== null) {
        socket.destroy();
        callback(new CapabilityError('forbidden_address', why), null);
        return;
      }
      callback(null, socket);
    });
  };
}

function peerRefusal(socket: Socket, policy: AddressPolicy): string | null {
  const peer = socket.remoteAddress;
  if (peer === undefined) return 'the connection has no peer address';
  const why = addressRefusal(peer, policy);
  return why === null ? null : `connected to ${peer}, which may not be contacted: ${why}`;
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

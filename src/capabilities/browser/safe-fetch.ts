// The one HTTP client the browser capabilities use. Every request goes through the URL policy
// first and through a connector that only ever connects to checked addresses; redirects are
// followed here, by hand, so each hop is judged like the first one and may not leave the host
// it started on. Time, hops and decoded body size are capped, no cookies or credentials are
// ever sent, and the agent lives for one call only, so no connection or DNS answer is reused
// across invocations.

import { Agent, fetch, type Response } from 'undici';
import { CapabilityError } from '../implementation.ts';
import { type AddressPolicy, addressPolicy } from './address-policy.ts';
import { type Resolver, guardedConnector, systemResolver } from './connection-guard.ts';
import { type ContentType, decodeBody, discardBody, isReadable, parseContentType, readCappedBody } from './response-body.ts';
import { type CheckedUrl, checkUrl, redirectRefusal } from './url-policy.ts';

export const USER_AGENT = 'Praxis/0.1 (read-only)';
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

const ACCEPT = 'text/html, application/xhtml+xml, text/plain;q=0.9, application/json;q=0.9';
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface SafeFetchOptions {
  /** How host names are resolved; the system resolver unless a test scripts the answers. */
  resolve?: Resolver;
  /**
   * Addresses to allow although the address policy refuses them. Only tests pass this, to
   * reach servers on 127.0.0.1; production code never sets it.
   */
  allowAddresses?: readonly string[];
  /** Redirects followed before giving up. */
  maxRedirects?: number;
  /** Wall time for the whole fetch, every hop and the body included, in milliseconds. */
  timeoutMs?: number;
  /** Time for one connection to be established, in milliseconds. */
  connectTimeoutMs?: number;
  /** Decoded body bytes read at most. */
  maxBodyBytes?: number;
}

export interface FetchRequest {
  signal: AbortSignal;
  /**
   * `required`: a body that is not one of the readable types is refused with
   * `unsupported_content_type`. `if-readable`: such a body is left unread and reported as null.
   */
  body: 'required' | 'if-readable';
}

export interface FetchedPage {
  /** The requested URL as parsed (canonical form, no fragment). */
  url: string;
  /** The URL of the response after following redirects. */
  finalUrl: string;
  status: number;
  contentType: ContentType | null;
  /** The decoded body, or null when its type is not read. */
  body: string | null;
  redirects: number;
}

export type SafeFetch = (url: string, request: FetchRequest) => Promise<FetchedPage>;

export function createSafeFetch(options: SafeFetchOptions = {}): SafeFetch {
  const policy = addressPolicy({ allowAddresses: options.allowAddresses ?? [] });
  const resolve = options.resolve ?? systemResolver;
  const limits = {
    maxRedirects: options.maxRedirects ?? DEFAULT_MAX_REDIRECTS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };

  return async (input, request) => {
    const start = checkUrl(input, policy);
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    const signal = AbortSignal.any([request.signal, deadline]);
    const agent = new Agent({
      connect: guardedConnector({ resolve, policy, connectTimeoutMs: limits.connectTimeoutMs }),
      connections: 1,
    });
    try {
      return await fetchFollowing(start, request, { agent, signal, policy, ...limits });
    } catch (error) {
      throw explain(error, { deadline, caller: request.signal, timeoutMs: limits.timeoutMs });
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  };
}

interface HopContext {
  agent: Agent;
  signal: AbortSignal;
  policy: AddressPolicy;
  maxRedirects: number;
  maxBodyBytes: number;
}

async function fetchFollowing(start: CheckedUrl, request: FetchRequest, context: HopContext): Promise<FetchedPage> {
  let current = start;
  for (let redirects = 0; ; redirects += 1) {
    const response = await fetchOnce(current, context);
    const location = response.headers.get('location');
    if (REDIRECT_STATUSES.has(response.status) && location !== null) {
      await discardBody(response);
      if (redirects >= context.maxRedirects) {
        throw new CapabilityError('too_many_redirects', `gave up after ${context.maxRedirects} redirects`);
      }
      // The next hop passes every check the first one did, then must stay on the same host.
      const next = checkUrl(location, context.policy, current.url);
      const why = redirectRefusal(current, next);
      if (why !== null) throw new CapabilityError('cross_host_redirect', `${why}; not followed (${next.url.href})`);
      current = next;
      continue;
    }
    return await readPage(start, current, response, request, context, redirects);
  }
}

function fetchOnce(target: CheckedUrl, context: HopContext): Promise<Response> {
  return fetch(target.url.href, {
    method: 'GET',
    dispatcher: context.agent,
    redirect: 'manual',
    signal: context.signal,
    credentials: 'omit',
    cache: 'no-store',
    headers: { 'user-agent': USER_AGENT, accept: ACCEPT },
  });
}

async function readPage(start: CheckedUrl, final: CheckedUrl, response: Response, request: FetchRequest, context: HopContext, redirects: number): Promise<FetchedPage> {
  const contentType = parseContentType(response.headers.get('content-type'));
  const page = { url: start.url.href, finalUrl: final.url.href, status: response.status, contentType, redirects };
  if (!isReadable(contentType)) {
    await discardBody(response);
    if (request.body === 'required') {
      const type = contentType?.mediaType ?? 'no content type';
      throw new CapabilityError('unsupported_content_type', `the response is ${type}; only text/html, application/xhtml+xml, text/plain and application/json are read`);
    }
    return { ...page, body: null };
  }
  const bytes = await readCappedBody(response, context.maxBodyBytes);
  return { ...page, body: decodeBody(bytes, contentType) };
}

interface AbortSources {
  deadline: AbortSignal;
  caller: AbortSignal;
  timeoutMs: number;
}

/** Turns whatever undici threw into a CapabilityError with a stable code. */
function explain(error: unknown, sources: AbortSources): CapabilityError {
  const named = findCapabilityError(error);
  if (named !== null) return named;
  if (sources.deadline.aborted) {
    return new CapabilityError('timeout', `no complete answer within ${sources.timeoutMs} ms`, true);
  }
  if (sources.caller.aborted) return new CapabilityError('aborted', 'the fetch was cancelled before it finished', true);
  return new CapabilityError('fetch_failed', `the request failed: ${describeFailure(error)}`, true);
}

function findCapabilityError(error: unknown, depth = 0): CapabilityError | null {
  if (error instanceof CapabilityError) return error;
  if (depth > 6 || typeof error !== 'object' || error === null) return null;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = findCapabilityError(inner, depth + 1);
      if (found !== null) return found;
    }
  }
  return findCapabilityError((error as { cause?: unknown }).cause, depth + 1);
}

function describeFailure(error: unknown): string {
  let current: unknown = error;
  let message = 'unknown error';
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, message: text, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof text === 'string' && text !== '' && text !== 'fetch failed') message = text;
    if (typeof code === 'string') return `${message} (${code})`;
    current = cause;
  }
  return message;
}

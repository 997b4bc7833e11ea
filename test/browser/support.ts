// Shared pieces for the browser tests: real HTTP servers on 127.0.0.1 (ephemeral ports), a
// resolver whose answers a test scripts, and the one place tests widen the address policy.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import type { ResolvedAddress, Resolver } from '../../src/capabilities/browser/connection-guard.ts';

/** The only exception tests make to the address policy: their own loopback servers. */
export const LOOPBACK_ONLY = ['127.0.0.1'] as const;

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request the server received, as `METHOD path`, with its headers. */
  requests: { line: string; headers: IncomingMessage['headers'] }[];
  /** Number of TCP connections accepted. */
  connections: () => number;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: TestServer['requests'] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    requests.push({ line: `${req.method} ${req.url}`, headers: req.headers });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handler = routes.get(path);
    if (handler === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    handler(req, res);
  });
  server.on('connection', (socket) => {
    connections += 1;
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A resolver with scripted answers per host; each call takes the next answer (the last repeats). */
export interface ScriptedResolver extends Resolver {
  calls: string[];
}

export function scriptedResolver(script: Record<string, readonly (readonly string[])[]>): ScriptedResolver {
  const calls: string[] = [];
  const answer = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const answers = script[host];
    if (answers === undefined || answers.length === 0) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    const seen = calls.filter((h) => h === host).length;
    const next = answers[Math.min(seen, answers.length) - 1]!;
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(answer, { calls });
}

/** Asserts that the promise rejects with a CapabilityError of the given code; returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<CapabilityError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CapabilityError, `expected a CapabilityError, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a refusal with ${code}, but it succeeded`);
}

export const never = new AbortController().signal;

export function html(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

export function redirect(res: ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location }).end();
}

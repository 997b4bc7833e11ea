// Shared set-up for MCP tests: a world on the simulated host, tokens for it, the daemon's HTTP
// server (API and /mcp as mounted by buildServer) listening on 127.0.0.1, and SDK clients
// speaking to it over HTTP.

import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { issueToken } from '../../src/access/tokens.ts';
import { MCP_PATH } from '../../src/mcp/http.ts';
import { exampleRestart } from '../daemon/process.ts';
import type { World } from '../execution/support.ts';
import { serverFor } from '../server/support.ts';

export interface McpHttp {
  app: FastifyInstance;
  /** The MCP endpoint. */
  url: URL;
  /** The API path `path` (e.g. `/api/v1/whoami`) on the same server. */
  api(path: string): URL;
  close(): Promise<void>;
}

/** The daemon's HTTP server over the world, as `praxis serve` builds it (no console, no metrics). */
export async function serveMcp(world: World): Promise<McpHttp> {
  const app = await serverFor(world);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: new URL(MCP_PATH, address), api: (path) => new URL(path, address), close: () => app.close() };
}

export async function tokenFor(world: World, role: 'viewer' | 'agent' | 'operator' | 'admin', mindId?: string): Promise<string> {
  const { token } = await issueToken(world.store, { operator: `${role}-one`, role, ...(role === 'agent' ? { mindId: mindId ?? world.mind.id } : {}) });
  return token;
}

export async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'praxis-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** What a tool answered: the structured content of a success or of an error. */
export interface Answer {
  isError: boolean;
  json: Record<string, any>;
  text: string;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  let json: Record<string, any> = (result.structuredContent as Record<string, any> | undefined) ?? {};
  if (!result.structuredContent) {
    try {
      json = JSON.parse(text) as Record<string, any>;
    } catch {
      json = {};
    }
  }
  return { isError: result.isError === true, json, text };
}

/** A success, or the test fails with the error the tool gave. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const answer = await call(client, name, args);
  assert.equal(answer.isError, false, `${name} failed: ${answer.text}`);
  return answer.json;
}

/** An error result, whose text must match `pattern`; returns the structured error when there is one. */
export async function refused(client: Client, name: string, args: Record<string, unknown>, pattern: RegExp): Promise<Answer> {
  const answer = await call(client, name, args);
  assert.equal(answer.isError, true, `${name} should have been refused, answered: ${answer.text}`);
  assert.match(answer.text, pattern);
  return answer;
}

export { UNIT } from '../execution/support.ts';

/** The restart plan of examples/restart-atlas-worker.json (a fresh copy), as a model would propose it. */
export const restartPlan = exampleRestart;

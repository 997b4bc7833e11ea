// A daemon's HTTP server over a test world: the counting test capabilities, tokens for every
// role, and a helper that sends a request with one of them.

import type { FastifyInstance } from 'fastify';
import { issueToken } from '../../src/access/tokens.ts';
import type { AccessRole } from '../../src/core/vocabulary.ts';
import { registerMcpRoutes } from '../../src/mcp/http.ts';
import { buildServer, type ServerOptions } from '../../src/server/app.ts';
import type { MindRecord } from '../../src/store/index.ts';
import { makeWorld, type World } from '../execution/support.ts';
import type { TestStore } from '../support/stores.ts';

export interface ApiWorld {
  world: World;
  app: FastifyInstance;
  other: MindRecord;
  tokens: Record<'viewer' | 'agent' | 'otherAgent' | 'operator' | 'admin', string>;
  call(who: keyof ApiWorld['tokens'] | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown): Promise<{ status: number; body: any }>;
}

/** The daemon's HTTP server over a test world, as `praxis serve` builds it (no console, no metrics), with `over` on top. */
export function serverFor(world: World, over: Partial<ServerOptions> = {}): Promise<FastifyInstance> {
  return buildServer({
    store: world.store,
    registry: world.registry,
    capabilities: world.service,
    planning: { registry: world.registry, model: null },
    logger: false,
    anonymousRole: null,
    consoleDir: null,
    metrics: null,
    isReady: () => true,
    // As the daemon serves it: MCP over HTTP beside the API.
    mounts: [registerMcpRoutes],
    ...over,
  });
}

export async function makeApiWorld(ts: TestStore, over: Partial<ServerOptions> = {}): Promise<ApiWorld> {
  const world = await makeWorld(ts);
  const other = await world.store.minds.create({ name: `other-${world.mind.id.slice(-8)}` });
  const issue = async (operator: string, role: AccessRole, mindId?: string) => (await issueToken(world.store, { operator, role, ...(mindId ? { mindId } : {}) })).token;
  const tokens = {
    viewer: await issue('vera', 'viewer'),
    agent: await issue('agent-a', 'agent', world.mind.id),
    otherAgent: await issue('agent-b', 'agent', other.id),
    operator: await issue('olga', 'operator'),
    admin: await issue('adam', 'admin'),
  };
  const app = await serverFor(world, over);
  return {
    world,
    app,
    other,
    tokens,
    async call(who, method, url, payload) {
      const response = await app.inject({
        method,
        url,
        // As any client must: a request that changes state says it is JSON (docs/api.md).
        headers: { ...(who ? { authorization: `Bearer ${tokens[who]}` } : {}), ...(method !== 'GET' ? { 'content-type': 'application/json' } : {}) },
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });
      const type = String(response.headers['content-type'] ?? '');
      return { status: response.statusCode, body: type.includes('json') ? response.json() : response.body };
    },
  };
}

/**
 * A write that policy asks about: raises a pending approval for the world's mind, authored by
 * `author` (an action with no recorded author cannot be approved on any surface).
 */
export async function pendingApproval(world: World, name = 'svc', batchKey = 'batch-1', author = 'tester'): Promise<string> {
  const result = await world.service.invoke({ mindId: world.mind.id, capability: 'test.write', params: { name }, origin: 'operator:test', batchKey, authoredBy: author });
  if (result.status !== 'pending') throw new Error(`expected a pending approval, got ${result.status}`);
  return result.approvalId;
}

export async function openRequest(world: World, mindId = world.mind.id): Promise<string> {
  const answer = await world.service.requestCapability({
    mindId,
    origin: 'test',
    capability: 'test.write',
    targetPattern: '*',
    durationSeconds: 3600,
    maxOperations: 5,
    reason: 'restart things',
    risk: 'low',
    mitigation: 'watch',
    fallback: 'ask again',
    batchKey: 'req-batch',
  });
  if (answer.status !== 'raised') throw new Error(`expected a raised request, got ${answer.status}`);
  return answer.requestId;
}

// The operator console: a built single-page app. Files are served as they are; any other GET
// outside the daemon's own prefixes gets index.html, so the console's client-side routes
// (/console/plans/…) survive a reload.

import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../core/errors.ts';

/** Paths that belong to the daemon, never to the console. */
const RESERVED = ['/api', '/docs', '/mcp', '/metrics', '/healthz', '/readyz'];

function isReserved(path: string): boolean {
  return RESERVED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export async function registerConsole(app: FastifyInstance, consoleDir: string | null): Promise<void> {
  if (consoleDir) {
    // In its own scope without reply decoration: swagger-ui registers @fastify/static too.
    await app.register(async (scope) => {
      await scope.register(fastifyStatic, { root: consoleDir, prefix: '/', decorateReply: false, index: ['index.html'] });
    });
  }
  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (consoleDir && (request.method === 'GET' || request.method === 'HEAD') && !isReserved(path) && extname(path) === '') {
      try {
        const html = await readFile(join(consoleDir, 'index.html'));
        return reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
      } catch {
        // No built console in that directory: fall through to a plain 404.
      }
    }
    return reply.code(404).send(errorBody('not_found', `no route ${request.method} ${path}`));
  });
}

// Closing the HTTP server without hanging. Fastify's close stops accepting, answers new requests
// on kept-alive connections with 503, and waits for requests in flight. An event stream never
// finishes on its own, so after a short grace every connection still open is cut.

import type { FastifyInstance } from 'fastify';

export async function closeServer(server: FastifyInstance, graceMs: number): Promise<void> {
  const closing = server.close();
  // Idle keep-alive sockets would otherwise hold the close open until they time out.
  server.server.closeIdleConnections();
  const timer = setTimeout(() => server.server.closeAllConnections(), graceMs);
  try {
    await closing;
  } finally {
    clearTimeout(timer);
  }
}

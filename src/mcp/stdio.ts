// MCP over stdin/stdout for one authenticated caller: the way a desktop client runs Praxis as a
// local tool. stdout carries protocol messages only; anything for a person goes to stderr.

import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpServerOptions } from './deps.ts';
import { createMcpServer } from './server.ts';

export interface StdioStreams {
  input: Readable;
  output: Writable;
}

/**
 * Serves until the client goes away (its end of stdin closes) or `stop` is signalled, then
 * closes the server. The store stays open: whoever opened it closes it.
 */
export async function serveMcpOverStdio(options: McpServerOptions, streams: StdioStreams = { input: process.stdin, output: process.stdout }, stop?: AbortSignal): Promise<void> {
  const server = createMcpServer(options);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const close = () => void server.close();
  streams.input.once('end', close);
  stop?.addEventListener('abort', close, { once: true });
  try {
    await server.connect(new StdioServerTransport(streams.input, streams.output));
    await closed;
  } finally {
    streams.input.off('end', close);
    stop?.removeEventListener('abort', close);
  }
}

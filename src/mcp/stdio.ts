// MCP over stdin/stdout for one authenticated caller: the way a desktop client runs Praxis as a
// local tool. stdout carries protocol messages only; anything for a person goes to stderr.

import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { principalHolds } from '../access/tokens.ts';
import type { McpServerOptions } from './deps.ts';
import { createMcpServer } from './server.ts';

export interface StdioStreams {
  input: Readable;
  output: Writable;
}

/**
 * Serves until the client goes away (its end of stdin closes), `stop` is signalled or the
 * caller's token stops holding, then closes the server. The store stays open: whoever opened it
 * closes it.
 *
 * A session lasts as long as its token holds, as a live stream does: the token is read again
 * before each message is handled (in the order they came), and a revoked or expired one closes
 * the session instead. Checked only at the start, a revoked agent's session went on proposing
 * plans for as long as the process ran.
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
    const transport = new StdioServerTransport(streams.input, streams.output);
    await server.connect(transport);
    const deliver = transport.onmessage;
    let turn = Promise.resolve();
    transport.onmessage = (message) => {
      turn = turn.then(async () => {
        const holds = await principalHolds(options.store, options.principal).catch((error: unknown) => {
          process.stderr.write(`praxis mcp: could not read the token back from the store (${error instanceof Error ? error.message : String(error)}); closing the session\n`);
          return null;
        });
        if (holds) deliver?.(message);
        else {
          if (holds === false) process.stderr.write('praxis mcp: the token was revoked or has expired; closing the session\n');
          close();
        }
      });
    };
    await closed;
  } finally {
    streams.input.off('end', close);
    stop?.removeEventListener('abort', close);
  }
}

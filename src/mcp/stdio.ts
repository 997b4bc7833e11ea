// MCP over stdin/stdout for one authenticated caller: the way a desktop client runs Praxis as a
// local tool. stdout carries protocol messages only; anything for a person goes to stderr.

import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { principalHolds } from '../access/tokens.ts';
import type { McpServerOptions } from './deps.ts';
import { createMcpServer } from './server.ts';

export interface StdioStreams {
  input: Readable;
  output: Writable;
}

/** The longest message read from stdin: the SDK's own bound (its ReadBuffer), named here so the session can say it. */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * How long a stop (SIGINT, SIGTERM) waits for the calls already read: a store read is done in
 * milliseconds, a plan asked of the model is not (up to PRAXIS_MODEL_TIMEOUT_MS, 60 s by
 * default), and a client that signals has usually waited for the process already (the MCP
 * stdio shutdown closes stdin first, then signals).
 */
export const STOP_GRACE_MS = 5_000;

/**
 * Why a session ended. `client_closed` and `stopped` are the ordinary ends; the others are
 * failures the CLI gives an exit code of its own (src/cli/commands/mcp.ts).
 */
export type SessionEnd = 'client_closed' | 'stopped' | 'token_ended' | 'store_unreadable' | 'input_too_large' | 'input_failed' | 'output_failed';

export interface StdioSession {
  end: SessionEnd;
  /** Calls still running when a stop's grace ran out: they were not answered, and may not have finished what they began. */
  abandoned: number;
}

export interface StdioLimits {
  /** STOP_GRACE_MS unless given. */
  graceMs?: number;
}

/**
 * Serves until the client goes away (its end of stdin closes), `stop` is signalled, the input
 * cannot be read on, or the caller's token stops holding; then stops reading, waits for every
 * message already read to be handled and its answer written, and closes the server. The store
 * stays open: whoever opened it closes it, once this has returned. A `stop` waits at most
 * `graceMs` for the calls already running; the calls still running then are counted in
 * `abandoned`, and the store must not be closed under them (the CLI exits instead).
 *
 * A session lasts as long as its token holds, as a live stream does: the token is read again
 * before each message is handled (in the order they came), and a revoked or expired one closes
 * the session instead. Checked only at the start, a revoked agent's session went on proposing
 * plans for as long as the process ran.
 */
export async function serveMcpOverStdio(
  options: McpServerOptions,
  streams: StdioStreams = { input: process.stdin, output: process.stdout },
  stop?: AbortSignal,
  limits: StdioLimits = {},
): Promise<StdioSession> {
  const { input, output } = streams;
  // Request handlers from their start until they settle, and answers until they are written.
  const running = new Set<Promise<unknown>>();
  const writing = new Set<Promise<unknown>>();
  const server = createMcpServer(options, (work) => hold(running, work));
  const transport = new StdioServerTransport(input, output, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES });

  let end: SessionEnd | null = null;
  let abandoned = 0;
  let tokenFailed = false;
  let turn = Promise.resolve();
  let finishing: Promise<void> | null = null;
  let graceTimer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });

  // The SDK closes its transport at once when it cannot read on (a message over the limit),
  // which aborts every call in flight and drops their answers; so closing is taken over here,
  // and the SDK's close runs once the session has finished what it read.
  // (In this SDK that is the only close it makes itself.)
  const sdkClose = transport.close.bind(transport);
  const closeTransport = once(() => void sdkClose());
  transport.close = () => {
    if (!end) {
      process.stderr.write(`praxis mcp: a message over ${STDIO_MAX_MESSAGE_BYTES} bytes (10 MiB, the most one message may be) cannot be read; ending the session\n`);
      answerUnreadable(-32600, `Invalid Request: a message over ${STDIO_MAX_MESSAGE_BYTES} bytes cannot be read; the session ends`);
    }
    return finish('input_too_large');
  };

  /** Stops reading; once everything read is handled and answered, closes the server. Idempotent. */
  function finish(why: SessionEnd): Promise<void> {
    end ??= why;
    // A paused stdin is read no further; the SDK drops what it had buffered when it closes.
    if (why !== 'client_closed') input.pause();
    finishing ??= settle().then(closeTransport);
    return finishing;
  }

  /** Resolves once every message already read has been handled and every answer written. */
  async function settle(): Promise<void> {
    await turn;
    for (;;) {
      // The SDK starts a delivered request's handler, and writes the answer of a settled one, in
      // promise callbacks (microtasks); after a macrotask all of those have run.
      await new Promise((resolve) => setImmediate(resolve));
      if (running.size === 0 && writing.size === 0) return;
      await Promise.allSettled([...running, ...writing]);
    }
  }

  const onEnd = () => void finish('client_closed');
  const onInputError = (error: Error) => {
    process.stderr.write(`praxis mcp: stdin failed (${error.message}); ending the session\n`);
    void finish('input_failed');
  };
  let outputGone: () => void = () => {};
  const gone = new Promise<void>((resolve) => (outputGone = resolve));
  const onOutputError = (error: Error) => {
    process.stderr.write(`praxis mcp: stdout failed (${error.message}); the answers not yet written are lost, ending the session\n`);
    outputGone();
    void finish('output_failed');
  };
  const onStop = () => {
    void finish('stopped');
    graceTimer = setTimeout(() => {
      abandoned = running.size;
      if (abandoned > 0) process.stderr.write(`praxis mcp: ${abandoned} call(s) still running ${limits.graceMs ?? STOP_GRACE_MS} ms after the stop; ending without their answers\n`);
      closeTransport();
    }, limits.graceMs ?? STOP_GRACE_MS);
  };

  input.once('end', onEnd).once('close', onEnd).on('error', onInputError);
  output.on('error', onOutputError);
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  const send = transport.send.bind(transport);
  transport.send = (message) => hold(writing, Promise.race([send(message), gone]));
  // In its turn, so answers keep the order of the lines. id null is what JSON-RPC asks when the
  // request's id cannot be read; the SDK's types allow none.
  const answerUnreadable = (code: number, message: string) => {
    if (finishing) return;
    turn = turn.then(async () => {
      if (!tokenFailed) await transport.send({ jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage);
    });
  };
  server.server.onerror = (error) => reportError(error, answerUnreadable);
  try {
    await server.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      if (finishing) return;
      turn = turn.then(async () => {
        if (tokenFailed) return;
        const holds = await principalHolds(options.store, options.principal).catch((error: unknown) => {
          process.stderr.write(`praxis mcp: could not read the token back from the store (${error instanceof Error ? error.message : String(error)}); closing the session\n`);
          return null;
        });
        if (holds) {
          try {
            deliver?.(message);
          } catch (error) {
            reportError(error as Error, answerUnreadable);
          }
          return;
        }
        tokenFailed = true;
        if (holds === false) process.stderr.write('praxis mcp: the token was revoked or has expired; closing the session\n');
        // Not awaited: finishing waits for this very turn.
        void finish(holds === false ? 'token_ended' : 'store_unreadable');
      });
    };
    await closed;
  } finally {
    clearTimeout(graceTimer);
    input.off('end', onEnd).off('close', onEnd).off('error', onInputError);
    output.off('error', onOutputError);
    stop?.removeEventListener('abort', onStop);
  }
  return { end: end ?? 'client_closed', abandoned };
}

/**
 * Says on stderr what went wrong with the input or the protocol; a line that is not JSON, or
 * JSON that is no JSON-RPC message, is answered as JSON-RPC 2.0 asks, with id null (the SDK reads
 * past it, and its streamable HTTP transport answers the same with 400).
 */
function reportError(error: Error, answer: (code: number, message: string) => void): void {
  if (error instanceof SyntaxError) {
    process.stderr.write(`praxis mcp: a message is not JSON (${error.message}); answered with a parse error (-32700)\n`);
    answer(-32700, `Parse error: not JSON (${error.message})`);
  } else if (error.name === 'ZodError') {
    process.stderr.write('praxis mcp: a message is not a JSON-RPC 2.0 request, notification or response; answered with an invalid request error (-32600)\n');
    answer(-32600, 'Invalid Request: not a JSON-RPC 2.0 message');
  } else {
    process.stderr.write(`praxis mcp: ${error.message}\n`);
  }
}

/** Keeps `work` in `set` until it settles; returns it. */
function hold<T>(set: Set<Promise<unknown>>, work: Promise<T>): Promise<T> {
  set.add(work);
  const release = () => void set.delete(work);
  work.then(release, release);
  return work;
}

function once(run: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    run();
  };
}

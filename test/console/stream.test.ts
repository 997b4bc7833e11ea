// The console's reconnecting event stream (web/src/api/stream.ts) against a fake fetch, on mock
// timers: a connection that goes silent (no bytes, never closed: a dropped TCP connection, a
// proxy that stopped forwarding) is abandoned after SILENCE_LIMIT_MS and opened again with
// Last-Event-ID; the server's heartbeats keep a quiet connection alive; the first reconnect waits
// half a second; and the limit follows the server's heartbeat interval.

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { HEARTBEAT_MS } from '../../src/server/stream.ts';
import { openEventStream, reconnectDelay, SERVER_HEARTBEAT_MS, SILENCE_LIMIT_MS, type StreamState } from '../../web/src/api/stream.ts';

interface Connection {
  headers: Record<string, string>;
  signal: AbortSignal;
  send(text: string): void;
}

/** A fetch whose every body sends what the test gives it and never ends by itself. */
function fakeFetch(connections: Connection[]): typeof fetch {
  return (async (_url: string, init: RequestInit) => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        source = controller;
      },
    });
    const signal = init.signal!;
    // As a real fetch does: aborting the request errors its body.
    signal.addEventListener('abort', () => source.error(new DOMException('aborted', 'AbortError')), { once: true });
    connections.push({ headers: init.headers as Record<string, string>, signal, send: (text) => source.enqueue(new TextEncoder().encode(text)) });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;
}

/** Lets the stream's promises (fetch, reads, the parser) settle; mock timers do not move. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('console event stream: silence and reconnects', () => {
  const realFetch = globalThis.fetch;
  let connections: Connection[];
  let states: [StreamState, string | undefined][];
  let close: () => void = () => {};

  beforeEach(() => {
    connections = [];
    states = [];
    globalThis.fetch = fakeFetch(connections);
    mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  });

  afterEach(() => {
    close();
    mock.timers.reset();
    globalThis.fetch = realFetch;
  });

  function open(): void {
    close = openEventStream({ token: 't', onEvent: () => {}, onState: (state, detail) => states.push([state, detail]) });
  }

  it('follows the server: the limit is two and a half of its heartbeat intervals', () => {
    assert.equal(SERVER_HEARTBEAT_MS, HEARTBEAT_MS);
    assert.equal(SILENCE_LIMIT_MS, 2.5 * HEARTBEAT_MS);
  });

  it('backs off from half a second to ten, as docs/console.md says', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 50].map(reconnectDelay), [500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('abandons a silent connection and reconnects with Last-Event-ID, half a second later', async () => {
    open();
    await settle();
    assert.equal(connections.length, 1);
    connections[0]!.send(': connected\n\n');
    connections[0]!.send('id: 41\nevent: plan_started\ndata: {"seq":41}\n\n');
    await settle();
    assert.equal(states.at(-1)?.[0], 'live');

    // Nothing more arrives and the connection never closes.
    mock.timers.tick(SILENCE_LIMIT_MS - 1);
    await settle();
    assert.equal(connections.length, 1, 'still waiting within the limit');
    mock.timers.tick(1);
    await settle();
    assert.equal(connections[0]!.signal.aborted, true, 'the silent request is aborted');
    assert.equal(states.at(-1)?.[0], 'reconnecting', 'the header stops saying live');
    mock.timers.tick(499);
    await settle();
    assert.equal(connections.length, 1);
    mock.timers.tick(1);
    await settle();
    assert.equal(connections.length, 2, 'reconnected after 0.5 s');
    assert.equal(connections[1]!.headers['Last-Event-ID'], '41');
  });

  it("keeps a quiet connection that hears the server's heartbeats", async () => {
    open();
    await settle();
    connections[0]!.send(': connected\n\n');
    await settle();
    for (let beat = 0; beat < 6; beat++) {
      mock.timers.tick(HEARTBEAT_MS);
      connections[0]!.send(': heartbeat\n\n');
      await settle();
    }
    assert.equal(connections.length, 1, 'six heartbeats, 90 s, one connection');
    assert.equal(connections[0]!.signal.aborted, false);
    // The heartbeats stop: the limit runs from the last one.
    mock.timers.tick(SILENCE_LIMIT_MS);
    await settle();
    mock.timers.tick(500);
    await settle();
    assert.equal(connections.length, 2);
  });
});

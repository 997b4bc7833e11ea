// The PostgreSQL wake listener (src/store/wake-listener.ts) against a server that accepts the TCP
// connection and never answers the startup, as a stuck server or proxy does. Before, the attempt
// stayed pending for good (no retry, no cross-process wake-ups) and closing the listener waited
// for good on the polite end of that connection, so the daemon could not stop.

import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { listenForWakeUps } from '../../src/store/wake-listener.ts';

/** A server that takes connections and says nothing, and holds its side open when the client ends its own. */
async function silentServer(): Promise<{ server: Server; url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (socket) => {
    socket.on('error', () => {});
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `postgres://praxis@127.0.0.1:${(server.address() as AddressInfo).port}/praxis`, sockets };
}

/**
 * A server that finishes PostgreSQL's startup (authentication ok, ready for query) and then reads
 * every query without answering, as a proxy holding it does.
 */
async function holdingServer(): Promise<{ server: Server; url: string; sockets: Socket[]; queries: string[] }> {
  const sockets: Socket[] = [];
  const queries: string[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => {});
    sockets.push(socket);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      if (!started) {
        started = true;
        const authOk = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
        const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
        socket.write(Buffer.concat([authOk, ready]));
        return;
      }
      if (chunk[0] === 0x51) queries.push(chunk.subarray(5, chunk.length - 1).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `postgres://praxis@127.0.0.1:${(server.address() as AddressInfo).port}/praxis`, sockets, queries };
}

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `promise`, or a failure saying `what` did not finish within `ms` (generous: this is not a timing check). */
function within<T>(promise: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]);
}

async function stop(server: Server, sockets: Socket[]): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('the wake listener against a server that never answers', () => {
  it('gives a stuck connection attempt up after its timeout and tries again', async () => {
    const { server, url, sockets } = await silentServer();
    const errors: Error[] = [];
    const listener = listenForWakeUps({ kind: 'postgres', url }, { onWake: () => {}, onError: (error) => errors.push(error), retryMs: 50, connectTimeoutMs: 300, closeTimeoutMs: 300 });
    try {
      await until(() => sockets.length >= 2, 'a second connection attempt');
      assert.ok(errors.length >= 1, 'the stuck attempt is reported');
      assert.equal(listener.listening, false);
    } finally {
      await within(listener.close(), 'closing the listener');
      await stop(server, sockets);
    }
  });

  it('gives up a LISTEN that a server (a proxy) holds after the startup, and tries again', async () => {
    const { server, url, sockets, queries } = await holdingServer();
    const errors: Error[] = [];
    const listener = listenForWakeUps({ kind: 'postgres', url }, { onWake: () => {}, onError: (error) => errors.push(error), retryMs: 50, connectTimeoutMs: 300, closeTimeoutMs: 300 });
    try {
      await until(() => sockets.length >= 2, 'a second connection attempt');
      assert.match(queries[0] ?? '', /^LISTEN "praxis_wake"/);
      assert.ok(errors.length >= 1, 'the held LISTEN is reported');
      assert.equal(listener.listening, false);
    } finally {
      await within(listener.close(), 'closing the listener');
      await stop(server, sockets);
    }
  });

  it('closes while an attempt is stuck, dropping its connection', async () => {
    const { server, url, sockets } = await silentServer();
    // The attempt would only time out long after the test.
    const listener = listenForWakeUps({ kind: 'postgres', url }, { onWake: () => {}, onError: () => {}, connectTimeoutMs: 600_000, closeTimeoutMs: 300 });
    try {
      await until(() => sockets.length >= 1, 'the connection attempt');
      await within(listener.close(), 'closing the listener');
      for (const socket of sockets) socket.resume();
      await until(() => sockets.every((socket) => socket.readableEnded), 'the server to see the connection end');
      assert.equal(sockets.length, 1, 'no attempt after closing');
    } finally {
      await stop(server, sockets);
    }
  });
});

import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, readStep } from '../execution/support.ts';
import { RECHECK_MS, TOKEN_RECHECK_MS } from '../../src/server/stream.ts';
import { WakeSignals, type Store } from '../../src/store/index.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, type ApiWorld } from './support.ts';

/** Reads the stream until `done` says the text so far is enough or the server ends it; fails after `ms`. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean, ms = 5000): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    while (!done(text)) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the stream did not deliver within ${ms} ms; got: ${text}`)), Math.max(0, deadline - Date.now()));
        }),
      ]);
      clearTimeout(timer);
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  return text;
}

/** Reads the stream until the server ends it; fails if that takes longer than `ms`. */
const readToEnd = (body: ReadableStream<Uint8Array>, ms: number): Promise<string> => readUntil(body, () => false, ms);

/**
 * The store with `events.latestSeq` (read as a stream opens) slowed by `delayMs`, telling how many
 * opening reads of the log (`seqTimesAfter`, the last before a stream registers) have ended and
 * how many wake-up listeners are registered now.
 */
function slowOpeningStore(store: Store, delayMs: number): { store: Store; openings(): number; listeners(): number } {
  let openings = 0;
  let listeners = 0;
  const events = new Proxy(store.events, {
    get(target, name) {
      if (name === 'latestSeq') return () => new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => target.latestSeq());
      if (name === 'seqTimesAfter') return (...args: Parameters<Store['events']['seqTimesAfter']>) => target.seqTimesAfter(...args).finally(() => (openings += 1));
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  class CountedSignals extends WakeSignals {
    override on(listener: (type: string) => void): () => void {
      listeners += 1;
      const off = store.wakeups.on(listener);
      return () => {
        listeners -= 1;
        return off();
      };
    }
  }
  return { store: { ...store, events, wakeups: new CountedSignals() }, openings: () => openings, listeners: () => listeners };
}

async function listen(api: ApiWorld): Promise<string> {
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
}

for (const kind of STORE_KINDS) {
  describe(`event stream (${kind})`, () => {
    const store = useStore(kind);

    it('delivers events appended after connecting, filtered by mind, and lets the server close with the stream open', async () => {
      const api = await makeApiWorld(store());
      const { world, other } = api;
      try {
        const base = await listen(api);
        await world.store.events.append({ type: 'operator_note', mindId: world.mind.id, data: { note: 'before connecting' } });
        const unauthorised = await fetch(`${base}/api/v1/stream`);
        assert.equal(unauthorised.status, 401);
        await unauthorised.body?.cancel();

        const controller = new AbortController();
        const response = await fetch(`${base}/api/v1/stream?mind=${world.mind.name}`, {
          headers: { authorization: `Bearer ${api.tokens.viewer}` },
          signal: controller.signal,
        });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
        // A non-waking event (only the re-check finds it), another mind's event, and a waking one.
        const note = await world.store.events.append({ type: 'operator_note', mindId: world.mind.id, data: { note: 'after connecting' } });
        await world.store.events.append({ type: 'operator_note', mindId: other.id, data: { note: 'elsewhere' } });
        const woke = await world.store.events.append({ type: 'grant_revoked', mindId: world.mind.id, data: {} });
        const text = await readUntil(response.body!, (t) => t.includes(woke.id));
        assert.ok(text.includes(`id: ${note.id}\nevent: operator_note\ndata: `), text);
        assert.ok(!text.includes('before connecting'));
        assert.ok(!text.includes('elsewhere'));
        const frames = text.split('\n\n').filter((f) => f.startsWith('id: '));
        assert.deepEqual(
          frames.map((f) => f.split('\n')[0]),
          [`id: ${note.id}`, `id: ${woke.id}`],
        );
        const data = JSON.parse(frames[0]!.split('\n')[2]!.slice('data: '.length));
        assert.equal(data.data.note, 'after connecting');
        assert.equal(data.createdAt, note.createdAt.toISOString());

        // Resuming after the first event replays only what came after it.
        const resumed = await fetch(`${base}/api/v1/stream?mind=${world.mind.id}`, {
          headers: { authorization: `Bearer ${api.tokens.viewer}`, 'last-event-id': note.id },
        });
        const replay = await readUntil(resumed.body!, (t) => t.includes(woke.id));
        assert.ok(!replay.includes(`id: ${note.id}`));

        // An agent cannot watch another mind.
        const refused = await fetch(`${base}/api/v1/stream?mind=${other.name}`, { headers: { authorization: `Bearer ${api.tokens.agent}` } });
        assert.equal(refused.status, 404);
        await refused.body?.cancel();

        // An agent learns nothing about other minds: another mind's plan answers as a missing one.
        const hidden = await fetch(`${base}/api/v1/stream?plan=${(await world.plan(draftOf([readStep('a')]), { mind: other })).plan.id}`, {
          headers: { authorization: `Bearer ${api.tokens.agent}` },
        });
        assert.equal(hidden.status, 404);
        await hidden.body?.cancel();

        const started = Date.now();
        await api.app.close();
        assert.ok(Date.now() - started < 3000, 'closing the server does not wait for open streams');
        controller.abort();
      } finally {
        await api.app.close();
      }
    });

    it('ends a stream whose token is revoked or expires, sending nothing more on it', async () => {
      const api = await makeApiWorld(store());
      const { world } = api;
      try {
        const base = await listen(api);
        const open = async (token: string) => {
          const response = await fetch(`${base}/api/v1/stream?mind=${world.mind.name}`, { headers: { authorization: `Bearer ${token}` } });
          assert.equal(response.status, 200);
          return response.body!;
        };

        // Revoked: the next event is not sent, and the stream ends at once.
        const revoked = await issueToken(world.store, { operator: 'rita', role: 'viewer' });
        const body = await open(revoked.token);
        const seen = await world.store.events.append({ type: 'grant_revoked', mindId: world.mind.id, data: {} });
        assert.ok((await readUntil(body, (t) => t.includes(seen.id))).includes(`id: ${seen.id}`));
        await world.store.accessTokens.revoke(revoked.record.id);
        const unseen = await world.store.events.append({ type: 'grant_revoked', mindId: world.mind.id, data: { note: 'after revoking' } });
        const rest = await readToEnd(body, RECHECK_MS + 2000);
        assert.ok(!rest.includes(unseen.id), rest);
        const again = await fetch(`${base}/api/v1/stream`, { headers: { authorization: `Bearer ${revoked.token}` } });
        assert.equal(again.status, 401);
        await again.body?.cancel();

        // Expired while idle: the stream ends on its next look at the token, with no event to send.
        const expiring = await issueToken(world.store, { operator: 'eve', role: 'viewer', expiresAt: new Date(world.clock.now().getTime() + 60_000) });
        const idle = await open(expiring.token);
        world.advance(120);
        const ended = Date.now();
        await readToEnd(idle, TOKEN_RECHECK_MS + RECHECK_MS + 2000);
        assert.ok(Date.now() - ended <= TOKEN_RECHECK_MS + RECHECK_MS + 2000);
      } finally {
        await api.app.close();
      }
    });

    it('registers nothing for a client that left while its stream was opening', async () => {
      // Before, its socket closed before the stream listened for that, and the stream stayed
      // registered (wake-up listener, re-check and heartbeat timers) until the daemon stopped.
      const slow = slowOpeningStore(store().store, 500);
      const api = await makeApiWorld(store(), { store: slow.store });
      const { world } = api;
      try {
        const base = await listen(api);
        const { port } = new URL(base);
        const CLIENTS = 3;
        const gone = Array.from({ length: CLIENTS }, async () => {
          const client = connect(Number(port), '127.0.0.1');
          await new Promise<void>((resolve) => client.once('connect', () => resolve()));
          client.write(`GET /api/v1/stream?mind=${world.mind.name} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${api.tokens.viewer}\r\n\r\n`);
          // Gone while the stream reads where to start (500 ms).
          await new Promise((resolve) => setTimeout(resolve, 100));
          client.destroy();
        });
        await Promise.all(gone);
        const deadline = Date.now() + 15_000;
        while (slow.openings() < CLIENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(slow.openings(), CLIENTS, 'every stream read where to start');
        // What the handler does after that read takes no I/O; a generous pause for it to be done.
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(slow.listeners(), 0, 'no stream of a client that is gone listens for wake-ups');
        // A waking event finds no stream to write to.
        await world.store.events.append({ type: 'grant_revoked', mindId: world.mind.id, data: {} });
        await new Promise((resolve) => setTimeout(resolve, RECHECK_MS + 300));
        assert.equal(slow.listeners(), 0);
      } finally {
        await api.app.close();
      }
    });

    it("buffers at most about a socket's worth for a client that does not read, and delivers everything once it does", async () => {
      const api = await makeApiWorld(store());
      const { world } = api;
      try {
        const base = await listen(api);
        const sockets: Socket[] = [];
        api.app.server.on('connection', (socket: Socket) => sockets.push(socket));
        const first = await world.store.events.append({ type: 'operator_note', mindId: world.mind.id, data: { note: 'start' } });
        const padding = 'x'.repeat(2000);
        const COUNT = 3000;
        for (let i = 0; i < COUNT; i += 500) {
          await world.store.transaction(async (tx) => {
            await tx.events.appendMany(Array.from({ length: Math.min(500, COUNT - i) }, (_, j) => ({ type: 'operator_note' as const, mindId: world.mind.id, data: { note: `n${i + j}`, padding } })));
          });
        }
        // A client that asks and then reads nothing.
        const { port } = new URL(base);
        const client = connect(Number(port), '127.0.0.1');
        await new Promise<void>((resolve) => client.once('connect', () => resolve()));
        client.pause();
        client.write(`GET /api/v1/stream?mind=${world.mind.name} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${api.tokens.viewer}\r\nlast-event-id: ${first.id}\r\n\r\n`);
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const buffered = Math.max(...sockets.map((s) => s.writableLength));
        assert.ok(buffered < 256 * 1024, `the server buffered ${buffered} bytes for a client reading nothing (${COUNT} events of 2 KB are ${COUNT * 2000})`);
        // Once it reads, every event arrives, in order.
        let text = '';
        client.setEncoding('utf8');
        client.on('data', (chunk: string) => (text += chunk));
        client.resume();
        const deadline = Date.now() + 15_000;
        while (!text.includes(`"note":"n${COUNT - 1}"`) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.match(text, /^HTTP\/1\.1 200 /, text.slice(0, 300));
        const notes = [...text.matchAll(/"note":"(n\d+)"/g)].map((m) => m[1]);
        assert.deepEqual(
          notes,
          Array.from({ length: COUNT }, (_, i) => `n${i}`),
        );
        client.destroy();
      } finally {
        await api.app.close();
      }
    });
  });
}

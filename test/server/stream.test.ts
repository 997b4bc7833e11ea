import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { makeApiWorld, type ApiWorld } from './support.ts';

/** Reads the stream until `done` says the text so far is enough, or fails after a deadline. */
async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean, ms = 5000): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (!done(text)) {
      if (Date.now() > deadline) throw new Error(`stream did not deliver in time; got: ${text}`);
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`stream stalled; got: ${text}`)), deadline - Date.now())),
      ]);
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text;
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
        assert.deepEqual(frames.map((f) => f.split('\n')[0]), [`id: ${note.id}`, `id: ${woke.id}`]);
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
        assert.equal(refused.status, 403);
        await refused.body?.cancel();

        const started = Date.now();
        await api.app.close();
        assert.ok(Date.now() - started < 3000, 'closing the server does not wait for open streams');
        controller.abort();
      } finally {
        await api.app.close();
      }
    });
  });
}

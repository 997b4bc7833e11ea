// One attempt at a delivery against a real HTTP server: the answer's status decides, and its
// body is never read (a target that streamed 600 MB had the daemon hold all of it in memory).

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { sendDelivery } from '../../src/notify/send.ts';
import type { DeliveryRecord } from '../../src/store/index.ts';

const delivery: DeliveryRecord = {
  id: '0190a5a0-0000-7000-8000-000000000001',
  target: 'ops',
  eventId: '0190a5a0-0000-7000-8000-000000000002',
  eventSeq: 1,
  topic: 'approval.requested',
  mindId: null,
  body: '{"topic":"approval.requested"}',
  status: 'pending',
  attempts: 0,
  nextAttemptAt: new Date(),
  leaseUntil: null,
  sentBy: '',
  responseStatus: null,
  lastError: '',
  createdAt: new Date(),
  updatedAt: new Date(),
} as DeliveryRecord;

describe('sending one delivery', () => {
  it('takes a 2xx whose body never ends as delivered, without reading the body', async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pour = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pour);
      };
      pour();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const started = Date.now();
      const answer = await sendDelivery({ name: 'ops', url: `http://127.0.0.1:${port}/hook`, secret: 'x'.repeat(32), format: 'praxis', topics: null }, delivery, new Date(), 3000);
      assert.deepEqual(answer, { status: 200, error: '' });
      assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms: the body was read`);
      assert.ok(written < 64 * 1024 * 1024, `${written} bytes were taken from the target`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

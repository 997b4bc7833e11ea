// The console's text/event-stream parser: messages split across chunks, CRLF, comments
// (heartbeats), multi-line data, and blocks without data.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseParser } from '../../web/src/api/stream.ts';

describe('console SSE parser', () => {
  it('parses id, event and data, across arbitrary chunk boundaries', () => {
    const text = 'id: 1\nevent: plan_started\ndata: {"a":1}\n\n: heartbeat\n\nid: 2\r\nevent: approval_approved\r\ndata: x\r\ndata: y\r\n\r\n';
    for (let size = 1; size <= text.length; size += 1) {
      const parser = new SseParser();
      const messages = [];
      for (let i = 0; i < text.length; i += size) messages.push(...parser.push(text.slice(i, i + size)));
      assert.deepEqual(
        messages,
        [
          { id: '1', event: 'plan_started', data: '{"a":1}' },
          { id: '2', event: 'approval_approved', data: 'x\ny' },
        ],
        `chunk size ${size}`,
      );
    }
  });

  it('dispatches nothing for a block without data, and defaults the event name', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('id: 7\n\n'), []);
    assert.deepEqual(parser.push('data:plain\n\n'), [{ id: '7', event: 'message', data: 'plain' }]);
  });
});

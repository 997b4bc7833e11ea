// Live events over Server-Sent Events. A stream starts after the newest event (or after the
// one named by Last-Event-ID) and sends every matching event appended since, in log order.
// It never trusts a signal to carry data: a wake-up (or the one-second re-check, since not every
// event type signals) only makes it read the log again from its last sequence number.
// A stream opened with a token lasts only as long as the token holds: it is checked again before
// any event is sent, every few seconds while the stream is idle, and when it expires. A token
// that no longer holds ends the stream; the client's reconnect then hears 401.

import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { openEventFeed, type EventRecord, type Services } from '../operations/index.ts';
import { principal } from './auth.ts';
import { Id, MindRef, strictObject } from './schemas.ts';
import type { Api } from './routes/context.ts';

export const HEARTBEAT_MS = 15_000;
export const RECHECK_MS = 1_000;
/** How often an idle stream checks that its token still holds (it also checks before sending). */
export const TOKEN_RECHECK_MS = 5_000;
/** setTimeout cannot wait longer than this (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const BATCH = 200;

export const StreamQuery = strictObject({ mind: Type.Optional(MindRef), plan: Type.Optional(Id), intention: Type.Optional(Id) });

/** Open streams, so the daemon can end them when it shuts down. */
export class StreamRegistry {
  readonly #ends = new Set<() => void>();
  add(end: () => void): () => void {
    this.#ends.add(end);
    return () => this.#ends.delete(end);
  }
  closeAll(): void {
    for (const end of [...this.#ends]) end();
  }
  get size(): number {
    return this.#ends.size;
  }
}

export function frame(event: EventRecord): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function streamRoute(api: Api, services: Services, streams: StreamRegistry, log: FastifyBaseLogger): void {
  api.get(
    '/stream',
    {
      config: { permission: 'read' },
      schema: { tags: ['events'], summary: 'live events as text/event-stream', querystring: StreamQuery },
    },
    async (request: FastifyRequest<{ Querystring: { mind?: string; plan?: string; intention?: string } }>, reply: FastifyReply) => {
      // Everything that can be refused is checked before the response is taken over.
      const lastEventId = request.headers['last-event-id'];
      const feed = await openEventFeed(services.store, principal(request), request.query, typeof lastEventId === 'string' ? lastEventId : undefined);

      reply.hijack();
      const raw = reply.raw;
      // A client that left while the feed opened has closed its socket already, and the 'close'
      // listened for below would never come: its stream stayed registered (wake-up listener,
      // timers) until the daemon stopped. From this check on nothing awaits before that listener.
      if (raw.destroyed) return;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      raw.write(': connected\n\n');

      let closed = false;
      let reading = false;
      let again = false;
      let tokenCheckedAt = Date.now();
      /** Ends the stream, and answers false, when the token no longer holds. */
      const stillHolds = async (): Promise<boolean> => {
        tokenCheckedAt = Date.now();
        if (await feed.holds()) return true;
        end();
        return false;
      };
      const pump = async (): Promise<void> => {
        if (closed) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            for (;;) {
              const events = await feed.next(BATCH);
              // Nothing is sent on a token that was revoked or expired since the last look, and an
              // idle stream looks every few seconds.
              const due = events.length > 0 || Date.now() - tokenCheckedAt >= TOKEN_RECHECK_MS;
              if (due && !(await stillHolds())) return;
              for (const event of events) {
                if (closed) return;
                // Backpressure: a client that reads slowly (or not at all) holds the pump here, so
                // a stream buffers at most the socket's high-water mark and one frame, never the
                // log (it buffered every batch it read: 46 MB for one idle client of 20,000 events).
                if (!raw.write(frame(event))) await drained();
              }
              if (events.length < BATCH) break;
            }
          } while (again && !closed);
        } catch (error) {
          if (!closed) log.warn({ err: error }, 'event stream could not read the log; closing it');
          end();
        } finally {
          reading = false;
        }
      };
      /** Resolves once the socket has taken what it buffered, or the stream is over. */
      const drained = () =>
        new Promise<void>((resolve) => {
          // Over already: its 'close' has fired and would not come again.
          if (raw.destroyed || raw.writableEnded) return resolve();
          const done = () => {
            raw.off('drain', done);
            raw.off('close', done);
            resolve();
          };
          raw.on('drain', done);
          raw.on('close', done);
        });
      const stopWake = feed.onCommitted(() => void pump());
      const recheck = setInterval(() => void pump(), RECHECK_MS);
      const heartbeat = setInterval(() => {
        // Only to an empty buffer: a client still reading frames knows the stream is alive.
        if (!closed && raw.writableLength === 0) raw.write(': heartbeat\n\n');
      }, HEARTBEAT_MS);
      // At the token's expiry, look again (the check reads the store's clock, which decides).
      const untilExpiry = feed.msUntilExpiry();
      const expiry = untilExpiry === null ? undefined : setTimeout(() => void stillHolds().catch(end), Math.min(MAX_TIMER_MS, untilExpiry));
      const end = () => {
        if (closed) return;
        closed = true;
        stopWake();
        clearInterval(recheck);
        clearInterval(heartbeat);
        clearTimeout(expiry);
        forget();
        raw.end();
      };
      const forget = streams.add(end);
      request.raw.on('close', end);
      raw.on('close', end);
      void pump();
    },
  );
}

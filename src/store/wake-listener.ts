// Cross-process wake-ups on PostgreSQL: one dedicated connection LISTENs on the store's
// channel. Notifications are only a nudge to look at the store again, never data, so after
// every (re)connection the listener reports a wake-up of its own: whatever was notified while
// it was away is found by the re-scan that follows.

import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresStoreConfig } from './config.ts';

/**
 * TCP keepalive after this long without traffic, on every PostgreSQL connection (the pool's and
 * the wake listener's): a connection kept open for hours must neither be dropped unseen by a
 * firewall or NAT between hosts that forgets quiet flows, nor, once its peer is gone, hang the
 * next query until the kernel gives up retransmitting.
 */
export const KEEPALIVE_AFTER_MS = 30_000;

/**
 * How long a connection attempt of the wake listener may take, startup included, before it counts
 * as failed and is retried: a server or proxy that accepts the TCP connection and never answers
 * left the attempt pending for good, and the daemon with no cross-process wake-ups.
 */
export const WAKE_CONNECT_TIMEOUT_MS = 10_000;
/** How long `close` waits for the connection to end politely before it drops it. */
export const WAKE_CLOSE_TIMEOUT_MS = 2_000;

/** The longest channel name PostgreSQL takes (an identifier: NAMEDATALEN - 1 bytes). */
const MAX_CHANNEL_BYTES = 63;
const CHANNEL_PREFIX = 'praxis_wake_';

/**
 * The channel of one store, which both LISTEN and NOTIFY name; a schema gets its own, so stores
 * sharing a database stay apart. A schema name may be 63 characters long, but `praxis_wake_` and
 * one over 51 made a channel pg_notify refuses ("channel name too long": every waking write
 * failed) and LISTEN silently cut short. Such a schema's channel keeps the start of its name and
 * ends with a digest of all of it, so two long names that begin alike stay apart. Shorter ones
 * keep the channel they always had, so daemons of older versions on the same store still wake
 * each other.
 */
export function wakeChannel(schema?: string): string {
  if (!schema) return 'praxis_wake';
  const channel = `${CHANNEL_PREFIX}${schema}`;
  if (Buffer.byteLength(channel) <= MAX_CHANNEL_BYTES) return channel;
  const digest = createHash('sha256').update(schema).digest('hex').slice(0, 12);
  return `${CHANNEL_PREFIX}${schema.slice(0, MAX_CHANNEL_BYTES - CHANNEL_PREFIX.length - digest.length - 1)}_${digest}`;
}

export interface WakeListenerOptions {
  /** Called with the event type that was notified, or `listening` after each (re)connection. */
  onWake(reason: string): void;
  /** Connection problems; the listener keeps retrying on its own. */
  onError?(error: Error): void;
  /** First retry delay; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** WAKE_CONNECT_TIMEOUT_MS unless given (tests). */
  connectTimeoutMs?: number;
  /** WAKE_CLOSE_TIMEOUT_MS unless given (tests). */
  closeTimeoutMs?: number;
}

export interface WakeListener {
  /** True while a connection is listening. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export function listenForWakeUps(config: PostgresStoreConfig, options: WakeListenerOptions): WakeListener {
  const channel = wakeChannel(config.schema);
  const firstDelay = options.retryMs ?? 250;
  const maxDelay = options.maxRetryMs ?? 10_000;
  const closeTimeout = options.closeTimeoutMs ?? WAKE_CLOSE_TIMEOUT_MS;
  let delay = firstDelay;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let listening = false;

  const retry = (error?: Error) => {
    listening = false;
    if (error) options.onError?.(error);
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, delay);
    delay = Math.min(delay * 2, maxDelay);
  };

  const connect = async () => {
    // Loaded on first use, like the store's pool (src/store/store.ts), so SQLite never loads it.
    const { default: pg } = await import('pg');
    if (closed) return;
    const next = new pg.Client({
      connectionString: config.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
      connectionTimeoutMillis: options.connectTimeoutMs ?? WAKE_CONNECT_TIMEOUT_MS,
      // The LISTEN too: a proxy (pgbouncer) may finish the startup and then hold the query, and
      // the attempt stayed pending for good with no retry.
      query_timeout: options.connectTimeoutMs ?? WAKE_CONNECT_TIMEOUT_MS,
    });
    client = next;
    // A dropped connection ends the client; both paths lead to one retry.
    next.on('error', (error) => {
      if (client === next) retry(error);
    });
    next.on('end', () => {
      if (client === next && !closed) retry();
    });
    next.on('notification', (message) => {
      if (message.channel === channel) options.onWake(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
      if (closed) return void (await endWithin(next, closeTimeout));
      listening = true;
      delay = firstDelay;
      options.onWake('listening');
    } catch (error) {
      if (client === next) {
        client = undefined;
        await endWithin(next, closeTimeout);
        retry(error as Error);
      }
    }
  };

  void connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      listening = false;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      if (last) await endWithin(last, closeTimeout);
    },
  };
}

/**
 * Ends a client, dropping its socket when that does not finish within `ms`: a polite end waits
 * for the server to close its side, which a server that never answered does not do, and a
 * daemon's stop waited on it for good.
 */
export async function endWithin(client: pg.Client, ms: number = WAKE_CLOSE_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    client.end().then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  if (!ended) client.connection.stream.destroy();
}

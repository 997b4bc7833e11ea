// The event stream, read with fetch because EventSource cannot send the Authorization header.
// A small parser turns text/event-stream into messages; the connection reconnects with
// Last-Event-ID after any drop, backing off from half a second up to ten, so the console never
// polls and never misses an event the server still holds. A connection that goes silent (a
// dropped TCP connection or a proxy that stopped forwarding: no bytes, and never closed) counts
// as a drop once nothing, not even a heartbeat, has arrived for SILENCE_LIMIT_MS.

import { API_BASE, ApiError, queryString } from './client.ts';
import type { EventRecord } from './types.ts';

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** Incremental text/event-stream parser (WHATWG rules, minus `retry`, which the caller owns). */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;

  /** Feeds a chunk of text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.#buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (!match) break;
      // A lone \r at the end of a chunk may be half of \r\n: wait for more text.
      if (match[0] === '\r' && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const message = this.#line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') {
      // Per the spec, a block without data lines dispatches nothing (but its id still counts).
      const hasData = this.#data.length > 0;
      const message = { id: this.#id, event: this.#event || 'message', data: this.#data.join('\n') };
      this.#data = [];
      this.#event = '';
      return hasData ? message : undefined;
    }
    if (line.startsWith(':')) return undefined; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    return undefined;
  }
}

/** How often the server sends a heartbeat comment on an idle stream (HEARTBEAT_MS in src/server/stream.ts). */
export const SERVER_HEARTBEAT_MS = 15_000;

/**
 * How long a connection may stay silent before it is abandoned and opened again: two heartbeats
 * missed and half an interval's grace for a slow network.
 */
export const SILENCE_LIMIT_MS = 2.5 * SERVER_HEARTBEAT_MS;

/** The wait before reconnect `attempt` (1, 2, …): half a second, doubling, at most ten. */
export function reconnectDelay(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(Math.max(attempt, 1) - 1, 5));
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface StreamOptions {
  token: string;
  filter?: { mind?: string; plan?: string; intention?: string };
  onEvent(event: EventRecord): void;
  onState(state: StreamState, detail?: string): void;
  /** After a reconnect: events may have been dropped by the server, so pages refresh. */
  onReconnected?(): void;
}

/** Opens the stream; returns a function that closes it for good. */
export function openEventStream(options: StreamOptions): () => void {
  const controller = new AbortController();
  let lastEventId: string | undefined;
  let attempt = 0;
  let closed = false;

  const run = async () => {
    while (!closed) {
      options.onState(attempt === 0 ? 'connecting' : 'reconnecting');
      // One connection: aborted when the stream is closed, or when it has been silent too long.
      const connection = new AbortController();
      const abortConnection = () => connection.abort();
      controller.signal.addEventListener('abort', abortConnection, { once: true });
      let silent = false;
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      // Every chunk, heartbeats included, shows the connection is alive: the limit runs from the last.
      const heard = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          silent = true;
          connection.abort();
        }, SILENCE_LIMIT_MS);
      };
      try {
        const headers: Record<string, string> = { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream' };
        if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
        heard();
        const response = await fetch(`${API_BASE}/stream${queryString(options.filter)}`, {
          headers,
          signal: connection.signal,
          cache: 'no-store',
        });
        if (response.status === 401 || response.status === 403) {
          options.onState('refused', `${response.status}`);
          return;
        }
        if (!response.ok || !response.body) throw new ApiError(response.status, `http_${response.status}`, response.statusText);
        if (attempt > 0) options.onReconnected?.();
        attempt = 0;
        options.onState('live');
        heard();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          heard();
          for (const message of parser.push(value)) {
            if (message.id !== undefined) lastEventId = message.id;
            const event = parseEvent(message);
            if (event) options.onEvent(event);
          }
        }
        if (!closed) options.onState('reconnecting', 'the server closed the stream');
      } catch (error) {
        if (closed) return;
        const detail = silent ? `nothing heard for ${SILENCE_LIMIT_MS / 1000} s` : error instanceof Error ? error.message : String(error);
        options.onState('reconnecting', detail);
      } finally {
        clearTimeout(watchdog);
        controller.signal.removeEventListener('abort', abortConnection);
      }
      if (closed) return;
      attempt += 1;
      await delay(reconnectDelay(attempt), controller.signal);
    }
  };
  void run();
  return () => {
    closed = true;
    controller.abort();
  };
}

/** The event a message carries: the server sends each stored event whole, as JSON. */
function parseEvent(message: SseMessage): EventRecord | undefined {
  try {
    const parsed: unknown = JSON.parse(message.data);
    return parsed !== null && typeof parsed === 'object' ? (parsed as EventRecord) : undefined;
  } catch {
    return undefined;
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

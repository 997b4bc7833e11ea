// Executors' presence on PostgreSQL, so that a claim whose executor died on another host is
// taken over in seconds rather than at the end of its lease. Each running executor holds a
// session-level advisory lock, keyed by its store and name, on a connection of its own; the
// server releases it the moment that session ends (a killed process's socket is closed by its
// kernel; a vanished host is noticed by the server's TCP keepalives set below). Another executor
// reads pg_locks to learn whose lock is no longer held. A key shared by two names (a 31-bit hash)
// only makes a dead executor look alive while the other lives: the lease stays the backstop.
//
// SQLite keeps no presence: a file is shared by processes of one host, whose ends the executor
// sees through their PIDs (src/execution/claimants.ts).

import { createHash } from 'node:crypto';
import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { endWithin, KEEPALIVE_AFTER_MS } from './wake-listener.ts';

/** The first half of every presence key, so Praxis's advisory locks stay apart from anyone else's ("PRXS"). */
export const PRESENCE_NAMESPACE = 0x50525853;

/** The application name of the connection that holds an executor's presence. */
export const PRESENCE_CONNECTION = 'praxis presence';

/** How often the holding connection is asked a trivial query, so a dropped one is noticed and replaced. */
export const PRESENCE_PING_MS = 5_000;
/** How long connecting, taking the lock or a ping may take before the attempt counts as failed. */
export const PRESENCE_TIMEOUT_MS = 10_000;
/**
 * Longest wait between attempts to hold presence again. Short, because others judge this
 * executor gone once its lock has been free for a grace of seconds (PRESENCE_GRACE_MS): after a
 * server restart every executor must be back before that.
 */
export const PRESENCE_MAX_RETRY_MS = 1_000;

/**
 * The server's TCP keepalives on the holding connection: a host that vanished (power lost,
 * network cut) leaves its session, and its lock, on the server until the kernel gives up on the
 * socket, by default hours. With these (and SESSION_SETTINGS' tcp_user_timeout) the server drops
 * it after about 25 s of silence.
 */
const SERVER_KEEPALIVES = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

/**
 * The second half of an executor's presence key: 31 bits of a digest of the schema its store's
 * tables are in, as the server resolves it (`current_schema()`), and the name.
 */
export function presenceKey(schema: string, name: string): number {
  return createHash('sha256').update(`${schema}\n${name}`).digest().readUInt32BE(0) & 0x7fffffff;
}

export interface PresenceHold {
  /** True while this executor's lock is held on a live connection. */
  readonly held: boolean;
  /** Resolves once the lock is held (at once when it is), or when `signal` aborts. */
  whenHeld(signal?: AbortSignal): Promise<void>;
  /** Lets the lock go by closing its connection. */
  release(): Promise<void>;
}

export interface PresenceEvents {
  /** The lock was taken (again). */
  onHeld?(): void;
  /** The lock was held and its connection failed; the hold is being taken again. */
  onLost?(error: Error | undefined): void;
  /** An attempt to take the lock failed, with why; retried on its own. */
  onError?(error: Error): void;
}

export interface Presence {
  /** Whether this store keeps presence (PostgreSQL) or knows nothing of it (SQLite). */
  readonly kept: boolean;
  /** Starts holding the presence of the executor `name` until released (or the store closes). */
  hold(name: string, events?: PresenceEvents): PresenceHold;
  /** Of `names`, those whose presence nobody holds now. Always none where presence is not kept. */
  absent(names: readonly string[]): Promise<string[]>;
  /** Releases every hold still held through this store (Store.close). */
  close(): Promise<void>;
}

/** Where presence is not kept: every hold is held at once, and nobody is ever known to be absent. */
export const noPresence: Presence = {
  kept: false,
  hold: () => ({ held: true, whenHeld: async () => {}, release: async () => {} }),
  absent: async () => [],
  close: async () => {},
};

export function postgresPresence(db: Kysely<Database>, connection: { url: string; options: string }): Presence {
  const holds = new Set<PresenceHold>();
  // The schema the store's tables are in, as the server resolves it: a store configured with
  // `public` and one left to the default search path share their tables, so they must share
  // their keys too (spelt from the configuration, each judged the other's live executors gone).
  let schema: string | undefined;
  const schemaOf = async (): Promise<string> => {
    if (schema !== undefined) return schema;
    const resolved = (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema;
    // No schema on the search path exists (yet): no key can be made, and none is kept for good.
    if (!resolved) throw new Error("the store's schema does not exist: no presence can be kept or looked at");
    schema = resolved;
    return schema;
  };
  return {
    kept: true,
    hold(name, events) {
      // Forgotten once its release has ended, so that closing the store waits for one under way.
      const hold = holdPresence(
        connection,
        async () => presenceKey(await schemaOf(), name),
        events ?? {},
        () => holds.delete(hold),
      );
      holds.add(hold);
      return hold;
    },
    async absent(names) {
      if (names.length === 0) return [];
      const resolved = await schemaOf();
      const keys = new Map(names.map((name) => [name, presenceKey(resolved, name)]));
      // objsubid 2: the two-int4 form of an advisory lock, whose halves are classid and objid.
      const { rows } = await sql<{ key: string }>`
        select l.objid::int8 as key from pg_locks l
        where l.locktype = 'advisory' and l.granted and l.objsubid = 2
          and l.database = (select oid from pg_database where datname = current_database())
          and l.classid::int8 = ${PRESENCE_NAMESPACE} and l.objid::int8 = any(${[...new Set(keys.values())]}::int8[])`.execute(db);
      const present = new Set(rows.map((row) => Number(row.key)));
      return names.filter((name) => !present.has(keys.get(name)!));
    },
    async close() {
      await Promise.all([...holds].map((hold) => hold.release()));
    },
  };
}

/**
 * Settings of the holding session, each from the server version that has it (an unknown one
 * would fail the session): no `idle_session_timeout` (14), which would end this idle session and
 * its lock while the executor lives; a `tcp_user_timeout` (12) of 25 s, so that data left
 * unacknowledged by a vanished host does not keep the session for TCP's retransmissions (minutes).
 */
const SESSION_SETTINGS = `select set_config('idle_session_timeout', '0', false) where current_setting('server_version_num')::int >= 140000
  union all select set_config('tcp_user_timeout', '25000', false) where current_setting('server_version_num')::int >= 120000`;

function holdPresence(connection: { url: string; options: string }, keyOf: () => Promise<number>, events: PresenceEvents, forget: () => void): PresenceHold {
  let client: pg.Client | undefined;
  let held = false;
  let released = false;
  let delay = 100;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let waiters: (() => void)[] = [];
  // The last connection's end, which the next attempt waits for: one connection at a time.
  let ending: Promise<void> = Promise.resolve();
  let releasing: Promise<void> | undefined;

  const drop = (which: pg.Client, error?: Error) => {
    if (client !== which) return;
    client = undefined;
    clearInterval(pingTimer);
    const was = held;
    held = false;
    ending = endWithin(which);
    if (was) events.onLost?.(error);
    else if (error) events.onError?.(error);
    schedule();
  };

  const schedule = () => {
    if (released || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void attempt();
    }, delay);
    delay = Math.min(delay * 2, PRESENCE_MAX_RETRY_MS);
  };

  const attempt = async () => {
    let next: pg.Client;
    let key: number;
    try {
      await ending;
      key = await keyOf();
      const { default: pg } = await import('pg');
      // Released meanwhile: a client made now would connect after its end (a no-op on a client
      // that never connected) and keep its process alive. From here on the client is set at
      // once, so a release ends it while it connects.
      if (released) return;
      next = new pg.Client({
        connectionString: connection.url,
        options: [connection.options, SERVER_KEEPALIVES].filter(Boolean).join(' '),
        application_name: PRESENCE_CONNECTION,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS,
        connectionTimeoutMillis: PRESENCE_TIMEOUT_MS,
        query_timeout: PRESENCE_TIMEOUT_MS,
      });
    } catch (error) {
      if (released) return;
      events.onError?.(error as Error);
      return schedule();
    }
    client = next;
    next.on('error', (error) => drop(next, error));
    next.on('end', () => drop(next));
    try {
      await next.connect();
      await next.query(SESSION_SETTINGS);
      const { rows } = await next.query<{ taken: boolean }>('select pg_try_advisory_lock($1, $2) as taken', [PRESENCE_NAMESPACE, key]);
      if (client !== next) return;
      if (!rows[0]?.taken) {
        // Another session holds the key: this executor's own earlier session, not yet ended by
        // the server, or another name with the same key. Holding it later is the only safe way.
        return drop(next, new Error(`presence key ${PRESENCE_NAMESPACE}/${key} is held by another session; trying again`));
      }
      held = true;
      delay = 100;
      pingTimer = setInterval(() => {
        next.query('select 1').catch((error: Error) => drop(next, error));
      }, PRESENCE_PING_MS);
      pingTimer.unref();
      events.onHeld?.();
      for (const wake of waiters.splice(0)) wake();
    } catch (error) {
      drop(next, error as Error);
    }
  };

  void attempt();
  return {
    get held() {
      return held;
    },
    whenHeld(signal) {
      if (held || released || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener('abort', done);
          waiters = waiters.filter((each) => each !== done);
          resolve();
        };
        waiters.push(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
    release() {
      // Once: a second call (the store closing while an executor lets go) waits for the first.
      releasing ??= (async () => {
        released = true;
        held = false;
        clearTimeout(retryTimer);
        clearInterval(pingTimer);
        for (const wake of waiters.splice(0)) wake();
        const last = client;
        client = undefined;
        if (last) await endWithin(last);
        await ending;
        forget();
      })();
      return releasing;
    },
  };
}

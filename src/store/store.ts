// Opening a store: one Kysely connection (SQLite file or PostgreSQL pool), the codec for its
// dialect, the injected clock, and the repositories built from them.

import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import type pg from 'pg';
import { systemClock, type Clock } from '../core/clock.ts';
import { codecFor, type Codec, type StoreKind } from './codec.ts';
import { assertSchemaName, type PostgresStoreConfig, type SqliteStoreConfig, type StoreConfig } from './config.ts';
import { migrateToLatest } from './migrations/index.ts';
import { withSqliteMigrationLock } from './sqlite-migration-lock.ts';
import { AccessTokenRepository } from './repositories/access-tokens.ts';
import { ApprovalRepository } from './repositories/approvals.ts';
import { BeliefRepository } from './repositories/beliefs.ts';
import { CapabilityRequestRepository } from './repositories/capability-requests.ts';
import { CommitmentRepository } from './repositories/commitments.ts';
import type { RepositoryContext } from './repositories/context.ts';
import { WakeSignals } from './wake-signals.ts';
import { noPresence, postgresPresence, type Presence } from './presence.ts';
import { KEEPALIVE_AFTER_MS, wakeChannel } from './wake-listener.ts';
import { EventCursorRepository } from './repositories/event-cursors.ts';
import { EventRepository } from './repositories/events.ts';
import { ExecutionRepository } from './repositories/executions.ts';
import { ExecutorQueryRepository } from './repositories/executor-queries.ts';
import { GaugeRepository } from './repositories/gauges.ts';
import { GrantRepository } from './repositories/grants.ts';
import { IntentionRepository } from './repositories/intentions.ts';
import { LlmCallRepository } from './repositories/llm-calls.ts';
import { MindRepository } from './repositories/minds.ts';
import { PlanRepository } from './repositories/plans.ts';
import { PolicyRuleRepository } from './repositories/policy-rules.ts';
import { PredictionRepository } from './repositories/predictions.ts';
import { ProceduralMemoryRepository } from './repositories/procedural-memories.ts';
import { StepRepository } from './repositories/steps.ts';
import { MindBundleRepository } from './repositories/mind-bundles.ts';
import { WantRepository } from './repositories/wants.ts';
import { WebhookDeliveryRepository } from './repositories/webhook-deliveries.ts';
import type { Database } from './schema.ts';
import { withNamedStatements } from './pg-statements.ts';
import { startBackgroundCheckpoints, type BackgroundCheckpoints } from './sqlite-checkpoints.ts';
import { PREPARED_STATEMENT_CACHE_SIZE, PraxisSqliteDialect, withStatementCache } from './sqlite-dialect.ts';
import { createPrivately } from './private-file.ts';

export interface Repositories {
  readonly minds: MindRepository;
  readonly intentions: IntentionRepository;
  readonly plans: PlanRepository;
  readonly steps: StepRepository;
  readonly events: EventRepository;
  readonly policyRules: PolicyRuleRepository;
  readonly commitments: CommitmentRepository;
  readonly executions: ExecutionRepository;
  readonly approvals: ApprovalRepository;
  readonly capabilityRequests: CapabilityRequestRepository;
  readonly grants: GrantRepository;
  /** The executor's read-side queries (due steps, plans to start or settle, usage by origin). */
  readonly executorQueries: ExecutorQueryRepository;
  readonly beliefs: BeliefRepository;
  readonly predictions: PredictionRepository;
  readonly proceduralMemories: ProceduralMemoryRepository;
  readonly llmCalls: LlmCallRepository;
  readonly accessTokens: AccessTokenRepository;
  /** Counts for the daemon's gauges (steps of live plans, pending approvals, open requests). */
  readonly gauges: GaugeRepository;
  readonly wants: WantRepository;
  /** A whole mind's rows as portable values, for forks, exports and imports. */
  readonly mindBundles: MindBundleRepository;
  /** Where each consumer of the event log (webhooks, traces) stands. */
  readonly eventCursors: EventCursorRepository;
  readonly webhookDeliveries: WebhookDeliveryRepository;
}

export interface Store extends Repositories {
  readonly kind: StoreKind;
  readonly db: Kysely<Database>;
  /** Where an approval's wake-up reads and claims (APPROVAL_CONNECTION); `db` on SQLite. */
  readonly approvalDb: Kysely<Database>;
  /** Where the executor reads the due index (DUE_READS_CONNECTION); `db` on SQLite. */
  readonly dueReadDb: Kysely<Database>;
  readonly codec: Codec;
  readonly clock: Clock;
  /** Signals, in this process, each committed event that can unblock work (see WAKE_EVENT_TYPES). */
  readonly wakeups: WakeSignals;
  /** Which executors are still running, on PostgreSQL (presence.ts); nothing is known on SQLite. */
  readonly presence: Presence;
  /** Brings the schema up to the latest migration, resolving to the names it applied (none when it already was). */
  migrate(): Promise<string[]>;
  /**
   * Runs `work` in one transaction with repositories bound to it: all of its writes commit
   * together or none do. Inside, use only the repositories passed in: on SQLite the store has a
   * single connection, which the transaction holds until it ends.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface StoreOptions {
  clock?: Clock;
  /**
   * Told the SQL text of every statement the store runs, `begin` and `commit` included, and how
   * long it took, after it ran: how the benchmark counts statements and commits per step. Must
   * not throw.
   */
  observeQuery?: (sql: string, durationMs: number) => void;
  /**
   * PostgreSQL: how long a pooled connection beyond the warm ones (WARM_CONNECTIONS) may sit idle
   * before it is closed; IDLE_CONNECTION_MS unless given.
   */
  idleConnectionMs?: number;
  /**
   * SQLite file: checkpoint the WAL on a thread of its own instead of on the thread that commits
   * (sqlite-checkpoints.ts). For a long-lived writer such as the daemon; a command that opens
   * the store for a moment has no use for the thread.
   */
  backgroundCheckpoints?: boolean;
}

/** How long a PostgreSQL connection beyond the warm ones may sit idle before the pool closes it. */
export const IDLE_CONNECTION_MS = 10_000;

/**
 * PostgreSQL connections the pool keeps open however long they sit idle (they are opened as
 * queries need them, and after a server restart opened again the same way). An approval usually
 * comes after a quiet spell longer than the pool's idle timeout; with every connection closed by
 * then, the executor woken for it opened a new one and prepared its statements again before it
 * could read the request: 11-14 ms from the approval to the claim on this machine kind after 11 s
 * of quiet, 6-9.5 ms with connections kept open (the rest is both processes waking from idle).
 * Two, because a pass reads side by side.
 */
export const WARM_CONNECTIONS = 2;

/**
 * The application name of the PostgreSQL connection an approval's wake-up runs on: the read of
 * its scene and the claim of its step (RepositoryContext.approvalDb). One connection of its own,
 * opened on first use and never closed for idling, so the approval after a quiet spell finds it
 * open, its statements prepared and the server process's caches of those tables warm. On the
 * pool it took 11-17 ms from the approval to the claim after 11 s of quiet: which connections
 * outlive the idle timeout is the pool's choice, and they were seldom the ones that had run these
 * statements. Its statements look rows up by key only, so it plans them generically
 * (plan_cache_mode): once per connection, not anew on each of the first five runs (about 0.4 ms
 * each). The pool cannot do that for every statement: a generic plan cannot use a partial index
 * whose predicate only a parameter's value would prove.
 */
export const APPROVAL_CONNECTION = 'praxis approvals';

/**
 * The application name of the PostgreSQL connections the executor reads the due index on
 * (RepositoryContext.dueReadDb): each pass's three reads of due steps, and held claims. Each is a
 * union of walks over four tables, and PostgreSQL made a custom plan for it on every run: 0.8-1.8
 * ms of planning against 0.05-0.4 ms of reading, on each pass of each daemon. PostgreSQL would not
 * choose a generic plan of itself (it cannot cost a bound LIMIT in one), so these connections
 * force it (plan_cache_mode): the statements they run write every vocabulary as a literal, which
 * a generic plan needs to use a partial index, and walk the same indexes generically as custom
 * (test/execution/selection.test.ts). The next due time stays on the pool: its generic plan read
 * the unbound part of the steps table whole. Two, kept open however long they idle
 * (WARM_CONNECTIONS).
 */
export const DUE_READS_CONNECTION = 'praxis due reads';

export function repositoriesFor(ctx: RepositoryContext): Repositories {
  return {
    minds: new MindRepository(ctx),
    intentions: new IntentionRepository(ctx),
    plans: new PlanRepository(ctx),
    steps: new StepRepository(ctx),
    events: new EventRepository(ctx),
    policyRules: new PolicyRuleRepository(ctx),
    commitments: new CommitmentRepository(ctx),
    executions: new ExecutionRepository(ctx),
    approvals: new ApprovalRepository(ctx),
    capabilityRequests: new CapabilityRequestRepository(ctx),
    grants: new GrantRepository(ctx),
    executorQueries: new ExecutorQueryRepository(ctx),
    beliefs: new BeliefRepository(ctx),
    predictions: new PredictionRepository(ctx),
    proceduralMemories: new ProceduralMemoryRepository(ctx),
    llmCalls: new LlmCallRepository(ctx),
    accessTokens: new AccessTokenRepository(ctx),
    gauges: new GaugeRepository(ctx),
    wants: new WantRepository(ctx),
    mindBundles: new MindBundleRepository(ctx),
    eventCursors: new EventCursorRepository(ctx),
    webhookDeliveries: new WebhookDeliveryRepository(ctx),
  };
}

export async function openStore(config: StoreConfig, options: StoreOptions = {}): Promise<Store> {
  const clock = options.clock ?? systemClock;
  const codec = codecFor(config.kind);
  const log = options.observeQuery ? queryLog(options.observeQuery) : undefined;
  const { db, approvalDb, dueReadDb, checkpoints, presence } =
    config.kind === 'sqlite'
      ? { ...openSqlite(config, log, options.backgroundCheckpoints ?? false), approvalDb: undefined, dueReadDb: undefined, presence: noPresence }
      : { ...(await openPostgres(config, log, options.idleConnectionMs)), checkpoints: undefined };
  const schema = config.kind === 'postgres' ? config.schema : undefined;
  const wakeups = new WakeSignals();
  const wakeChannelName = config.kind === 'postgres' ? wakeChannel(config.schema) : null;
  // SQLite has one connection: approvals read and claim on it too, and the due index is read on it.
  const approvals = approvalDb ?? db;
  const dueReads = dueReadDb ?? db;
  const repositories = repositoriesFor({ db, approvalDb: approvals, dueReadDb: dueReads, codec, clock, wake: (type) => wakeups.emit(type), wakeChannel: wakeChannelName });
  return {
    kind: config.kind,
    db,
    approvalDb: approvals,
    dueReadDb: dueReads,
    codec,
    clock,
    ...repositories,
    async migrate() {
      // With a schema, the migrator creates it first (tolerating a concurrent creator).
      if (config.kind === 'sqlite' && config.path !== ':memory:') return migrateToLatest(db, 'sqlite', undefined, (work) => withSqliteMigrationLock(config.path, work));
      return migrateToLatest(db, config.kind, schema);
    },
    wakeups,
    presence,
    async transaction(work) {
      const committed: string[] = [];
      const result = await db.transaction().execute(async (tx) => {
        const scoped = repositoriesFor({ db: tx, approvalDb: tx, dueReadDb: tx, codec, clock, wake: (type) => committed.push(type), wakeChannel: wakeChannelName });
        const done = await work(scoped);
        // The events the work appended, queued until now (EventRepository), go in before the commit.
        await scoped.events.flush();
        return done;
      });
      for (const type of committed) wakeups.emit(type);
      return result;
    },
    async close() {
      // The worker's connection closes first, so that the writer's, closing last, checkpoints
      // the whole WAL and removes it.
      await checkpoints?.stop();
      await presence.close();
      await Promise.all([db.destroy(), approvalDb?.destroy(), dueReadDb?.destroy()]);
    },
  };
}

/**
 * The URL's `options` parameter (startup options such as `-c statement_timeout=5000`) and the
 * URL without it. pg lets a URL's parameters override the client's configuration, so an
 * `options` in the URL would otherwise replace the store's own (its durable commits among them).
 */
function startupOptionsOf(url: string): { url: string; options: string } {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  if (options === null) return { url, options: '' };
  parsed.searchParams.delete('options');
  return { url: parsed.toString(), options };
}

type QueryLog = (event: LogEvent) => void;

function queryLog(observe: (sql: string, durationMs: number) => void): QueryLog {
  return (event) => {
    if (event.level === 'query') observe(event.query.sql, event.queryDurationMillis);
  };
}

// A new store is created 0600 in directories made 0700 before SQLite opens it (private-file.ts);
// SQLite gives its -wal and -shm files the database file's mode.

function openSqlite(config: SqliteStoreConfig, log: QueryLog | undefined, backgroundCheckpoints: boolean): { db: Kysely<Database>; checkpoints: BackgroundCheckpoints | undefined } {
  if (config.path !== ':memory:') createPrivately(resolve(config.path));
  const database = new BetterSqlite3(config.path);
  // Wait for the write lock instead of failing when another process holds it.
  database.pragma('busy_timeout = 5000');
  // Readers never block the writer, and several processes can share the file.
  database.pragma('journal_mode = WAL');
  // SQLite leaves foreign keys unenforced unless asked, per connection.
  database.pragma('foreign_keys = ON');
  // Every commit reaches the disk before it returns. WAL mode's usual NORMAL would let a committed
  // claim or write-ahead execution row vanish on power loss, and the non-idempotent action behind
  // it could then run a second time after the machine comes back.
  database.pragma('synchronous = FULL');
  const checkpoints = backgroundCheckpoints && config.path !== ':memory:' ? startBackgroundCheckpoints(database, config.path) : undefined;
  const cached = withStatementCache(database, PREPARED_STATEMENT_CACHE_SIZE, checkpoints?.written);
  return { db: new Kysely<Database>({ dialect: new PraxisSqliteDialect({ database: cached }), ...(log ? { log } : {}) }), checkpoints };
}

async function openPostgres(
  config: PostgresStoreConfig,
  log: QueryLog | undefined,
  idleConnectionMs = IDLE_CONNECTION_MS,
): Promise<{ db: Kysely<Database>; approvalDb: Kysely<Database>; dueReadDb: Kysely<Database>; presence: Presence }> {
  if (config.schema !== undefined) assertSchemaName(config.schema);
  // Loaded here, not at start: a process on SQLite never needs the PostgreSQL client.
  const { default: pg } = await import('pg');
  // Every commit is durable whatever the server's default (a claim or a write-ahead execution
  // row must never vanish after it was reported committed), and unqualified table names
  // resolve in the configured schema. Both follow the URL's own startup options, which pg would
  // otherwise put in their place; the server applies them in order, so these win.
  //
  // JIT compilation is off unless the URL's options turn it back on (they come after it, so they
  // win). The executor's statements are short, but a few carry planner estimates far above
  // jit_above_cost once a store holds many live plans (the settling sweep's correlated subqueries:
  // 650,000 with 20,000 of them), and PostgreSQL then compiled that statement on every run,
  // uncached: 400 ms of compiling for 16 ms of reading, on each daemon at each sweep.
  const given = startupOptionsOf(config.url);
  const options = ['-c jit=off', ...(given.options ? [given.options] : []), '-c synchronous_commit=on', ...(config.schema ? [`-c search_path=${config.schema}`] : [])];
  const connection = { connectionString: given.url, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_AFTER_MS };
  const pool: pg.Pool = new pg.Pool({ ...connection, options: options.join(' '), min: WARM_CONNECTIONS, idleTimeoutMillis: idleConnectionMs });
  // APPROVAL_CONNECTION: opened on first use, and an idle timeout of 0 never closes it.
  const approvalPool: pg.Pool = new pg.Pool({
    ...connection,
    options: [...options, '-c plan_cache_mode=force_generic_plan'].join(' '),
    application_name: APPROVAL_CONNECTION,
    max: 1,
    idleTimeoutMillis: 0,
  });
  const dueReadPool: pg.Pool = new pg.Pool({
    ...connection,
    options: [...options, '-c plan_cache_mode=force_generic_plan'].join(' '),
    application_name: DUE_READS_CONNECTION,
    // Kept open like the store's warm ones: the first pass after a quiet spell reads its due
    // work here before anything else, and would otherwise open a connection for it.
    min: WARM_CONNECTIONS,
    max: WARM_CONNECTIONS,
    idleTimeoutMillis: idleConnectionMs,
  });
  // An idle client can lose its server (restart, failover); the pool drops it and the next query
  // reconnects. Without a listener the error would crash the process.
  for (const each of [pool, approvalPool, dueReadPool]) each.on('error', () => {});
  const kysely = (of: pg.Pool) => new Kysely<Database>({ dialect: new PostgresDialect({ pool: config.namedStatements === false ? of : withNamedStatements(of) }), ...(log ? { log } : {}) });
  const db = kysely(pool);
  return { db, approvalDb: kysely(approvalPool), dueReadDb: kysely(dueReadPool), presence: postgresPresence(db, given) };
}

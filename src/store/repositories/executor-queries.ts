// The executor's read side: the questions a tick asks, written so that what they cost grows
// with the work that is due, never with the history in the store. Steps are found through the
// partial due index (plan_steps_due_idx) and plans through the partial index over the statuses
// a tick looks at (plans_live_idx, migration 0003); closed plans and finished steps are in
// neither. Each query joins the mind, so a disabled mind, a dream plan or a mind bound to
// another host is filtered out in SQL rather than read and thrown away.

import { CompiledQuery, sql, type Compilable, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { QueryTemplate } from '../query-template.ts';
import type { Database } from '../schema.ts';
import { DUE_STEP_STATUSES, RUNNING_PLAN_STATUSES, type IntentionStatus, type PlanStatus, type StepStatus } from '../../core/vocabulary.ts';
import { hasOrigin, oneOf, partialIndexTerm, stepIsDue } from '../vocabulary-sql.ts';
import type { StoreKind } from '../codec.ts';
import { chunksFor, isAnyOf } from '../row-table.ts';
import type { RepositoryContext } from './context.ts';
import { decodeStep, FINAL_STEP_STATUSES, type StepRecord } from './steps.ts';
import { decodeApproval, type ApprovalRecord } from './approvals.ts';
import { activeCommitmentsOf, decodeCommitment, type CommitmentRecord } from './commitments.ts';
import { decodeIntention, intentionOfStep, type IntentionRecord } from './intentions.ts';
import { decodeMind, type MindRecord } from './minds.ts';
import { decodePlan, planOfStep, stepsOfPlanOfStep, type PlanWithSteps, withSteps } from './plans.ts';
import { decodePolicyRule, rulesOfMind, type PolicyRuleRecord } from './policy-rules.ts';

/** Plan statuses the executor revisits; the predicate of `plans_live_idx` (rebuilt by migration 0010). */
export const LIVE_PLAN_STATUSES = ['validated', ...RUNNING_PLAN_STATUSES, 'replanning'] as const;

/**
 * The predicate of `plans_live_idx`, which the queries it serves repeat as written (`column`
 * qualified as they name it): a list on PostgreSQL, as migrations 0003 and 0010 made the index;
 * equalities on SQLite since migration 0016, which evaluates it on every status move of a plan.
 */
export function planIsLive(kind: StoreKind, column = 'status'): RawBuilder<SqlBool> {
  return partialIndexTerm(kind, column, LIVE_PLAN_STATUSES);
}

/** Which minds a daemon may advance: unbound ones, and those bound to its own host. */
export interface Affinity {
  /** The daemon's host; null means it runs only minds bound to no host. */
  host: string | null;
}

export interface DueStepQuery extends Affinity {
  now: Date;
  limit: number;
}

export interface PlanQuery extends Affinity {
  limit: number;
}

/**
 * Where a plan stands: its status, its intention's, and its steps' statuses in position order
 * (stepStatusList). A plan's steps are written with it and never added or removed, so the list
 * tells whether any step moved since a reading.
 */
export interface PlanStatuses {
  plan: PlanStatus;
  intention: IntentionStatus;
  steps: string;
}

/** The statuses of `steps` (in position order) as PlanStatuses lists them. */
export function stepStatusList(steps: readonly { status: StepStatus }[]): string {
  let list = '';
  for (const step of steps) list += list === '' ? step.status : `,${step.status}`;
  return list;
}

/** Counts of what each origin caused, for budget accounting. */
export interface OriginCounts {
  executions: Map<string, number>;
  approvals: Map<string, number>;
  requests: Map<string, number>;
}

/** The joined mind (aliased `m`) is active and may run on `host`. */
function mayAdvance(host: string | null) {
  const active = sql<SqlBool>`${sql.ref('m.status')} = ${sql.lit('active')}`;
  return host === null ? sql<SqlBool>`${active} and ${sql.ref('m.host')} is null` : sql<SqlBool>`${active} and (${sql.ref('m.host')} is null or ${sql.ref('m.host')} = ${host})`;
}

/**
 * The parts of the due index (migration 0019: it leads with the step's copy of its mind's host)
 * that a daemon's reads of steps walk: its own host's, when it has one, then the unbound steps'
 * (null). Each read walks each part on its own, so a daemon never walks another host's steps,
 * however many are waiting there; mayAdvance still judges each step's mind.
 */
function hostParts(host: string | null): readonly (string | null)[] {
  return host === null ? [null] : [host, null];
}

/** The step (aliased as its table) lies in `part` of the due index: a host's steps, or the unbound ones (null). */
function inPart(part: string | null) {
  return part === null ? sql<SqlBool>`${sql.ref('plan_steps.host')} is null` : sql<SqlBool>`${sql.ref('plan_steps.host')} = ${part}`;
}

type StepRow = Selectable<Database['plan_steps']>;

/**
 * `read` of each part of the due index the daemon walks (hostParts), each in `order` and stopped
 * at `limit`; with two parts, one statement taking both in `order` again, cut to `limit`. Each
 * part's walk stops at the limit, so the two together read at most twice the limit. A walk is
 * ordered by the host first, the same throughout a part: an `is null` term does not take the
 * column out of the index's order as an equality does, and without it PostgreSQL read the whole
 * unbound part (every step, where no mind is bound) and sorted it (45 ms with 20,000 ready).
 */
function acrossParts(
  db: Kysely<Database>,
  host: string | null,
  limit: number,
  order: readonly ('next_run_at' | 'id')[],
  read: (part: string | null) => SelectQueryBuilder<Database, 'plan_steps', StepRow>,
) {
  const walk = (part: string | null) => order.reduce((query, column) => query.orderBy(`plan_steps.${column}`), read(part).orderBy('plan_steps.host')).limit(limit);
  if (host === null) return walk(null);
  const [own, unbound] = hostParts(host).map((part, i) => db.selectFrom(walk(part).as(`part${i}`)).selectAll());
  return order.reduce((query, column) => query.orderBy(column), own!.unionAll(unbound!)).limit(limit);
}

/**
 * `read` of each part of the due index the daemon walks (hostParts), as one statement: the parts'
 * rows one after the other (`union all`; a plan's steps all lie in one part, its mind's).
 */
function partsTogether<DB, TB extends keyof DB, O>(host: string | null, read: (part: string | null) => SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
  const [first, ...rest] = hostParts(host).map(read);
  return rest.reduce((all, next) => all.unionAll(next), first!);
}

/** A read that walks an index (the due index, the startable plans'), to compile (a test asks the planner about it) or to run. */
export interface IndexWalk<Row> {
  compile(): CompiledQuery<Row>;
  execute(): Promise<Row[]>;
}

/** Where a read of the due index names its steps' table (`plan_steps`, unaliased, first in FROM). */
const STEPS_FROM = /from "plan_steps" (?=cross join|inner join|where)/g;

/**
 * `query` as a read of the due index. On SQLite its steps are read through the index by name
 * (INDEXED BY): once ANALYZE has sampled a backlog whose steps are all one host's (or all
 * unbound) and all ready, SQLite judges a walk of that part no better than reading the table,
 * and read all 20,000 and sorted them (19 ms) to return a batch; the walk stops at the batch
 * (0.5 ms). Should the index ever be unable to serve the read, SQLite refuses it rather than
 * scanning. PostgreSQL walks the index of itself (as it did before the host led it).
 */
function throughDueIndex<Row>(kind: StoreKind, query: Compilable<Row>): Compilable<Row> {
  return throughIndex(kind, query, STEPS_FROM, 'from "plan_steps" indexed by "plan_steps_due_idx" ');
}

/**
 * `query` with its FROM (matched by `from`) written as `named`, which names the index to read on
 * SQLite (INDEXED BY); PostgreSQL's queries are left as they are. Throws when the query does not
 * read the table where expected, rather than run without the index.
 */
function throughIndex<Row>(kind: StoreKind, query: Compilable<Row>, from: RegExp, named: string): Compilable<Row> {
  if (kind !== 'sqlite') return query;
  return {
    compile: () => {
      const compiled = query.compile();
      const text = compiled.sql.replace(from, named);
      if (text === compiled.sql) throw new Error(`a read through an index by name does not read its table where expected: ${compiled.sql}`);
      return CompiledQuery.raw(text, [...compiled.parameters]) as CompiledQuery<Row>;
    },
  };
}

/** Where the read of startable plans names its plans' table. */
const PLANS_FROM = /from "plans" as "p" (?=inner join)/;

/**
 * A read of the due index, compiled once per store kind and per shape of affinity: a daemon of
 * no host walks one part of the index, a daemon of a host two (hostParts), so each is a template
 * of its own (`unbound`, given no host; `hosted`, given the host last). A pass runs three or four
 * of these; built and compiled by Kysely on every pass they cost 0.2-0.6 ms of it, more than
 * reading an empty index.
 */
class DueRead<Args extends readonly unknown[], Row> {
  readonly #unbound: QueryTemplate<Args, Row>;
  readonly #hosted: QueryTemplate<readonly [...Args, string], Row>;
  constructor(build: (db: Kysely<Database>, kind: StoreKind, args: Args, host: string | null) => Compilable<Row>) {
    this.#unbound = new QueryTemplate<Args, Row>((db, args, kind) => throughDueIndex(kind, build(db, kind, args, null)));
    this.#hosted = new QueryTemplate<readonly [...Args, string], Row>((db, args, kind) => throughDueIndex(kind, build(db, kind, args.slice(0, -1) as unknown as Args, args.at(-1) as string)));
  }

  walk(db: Kysely<Database>, kind: StoreKind, args: Args, host: string | null): IndexWalk<Row> {
    const compile = (): CompiledQuery<Row> => (host === null ? this.#unbound.compile(db, kind, args) : this.#hosted.compile(db, kind, [...args, host]));
    return { compile, execute: async () => (await db.executeQuery(compile())).rows };
  }
}

/** The plan (aliased `p`) is in a status the executor revisits: the index predicate, qualified. */
function livePlan(kind: StoreKind) {
  return planIsLive(kind, 'p.status');
}

/** The plan (aliased `p`) is started and running: executing, or waiting for time or for an operator. */
function runningPlan() {
  return sql<SqlBool>`${sql.ref('p.status')} in (${sql.join(RUNNING_PLAN_STATUSES.map((s) => sql.lit(s)))})`;
}

/**
 * runningPlan() for a query that also has livePlan(kind), written as the live statuses that are not running, which
 * keeps PostgreSQL's planner on the live-plans index (a second `status in (...)` list reads to it
 * as an index condition that the whole-mind index serves as well).
 */
function runningAmongLive() {
  const notRunning = LIVE_PLAN_STATUSES.filter((s) => !(RUNNING_PLAN_STATUSES as readonly string[]).includes(s));
  return sql<SqlBool>`${sql.ref('p.status')} not in (${sql.join(notRunning.map((s) => sql.lit(s)))})`;
}

/** The plan (aliased `p`) is not paused. */
function notPaused() {
  return sql<SqlBool>`${sql.ref('p.paused_at')} is null`;
}

/**
 * The steps of advanceable plans the executor may act on once they are due (without the due
 * time). A `ready` step runs only while its plan is running (executing, waiting or
 * awaiting_approval); a step in any other due status of a blocked plan is still polled; a paused
 * plan's steps are left alone (its waits keep their due time and act once it is resumed); an
 * `executing` step is always returned once due, paused plan or not, because only recovery can
 * settle a claim whose executor vanished, whatever has happened to its plan since. The plan and
 * the mind are cross joins: SQLite keeps the tables of a CROSS JOIN in the order written, so the
 * steps are read first, in the due index's order, and a limit stops the walk (joined first, a
 * small minds table would lead and every due step would be sorted).
 */
function actionableSteps(db: Kysely<Database>, kind: StoreKind, host: string | null, part: string | null) {
  return db
    .selectFrom('plan_steps')
    .crossJoin('plans as p')
    .crossJoin('minds as m')
    .whereRef('p.id', '=', 'plan_steps.plan_id')
    .whereRef('m.id', '=', 'plan_steps.mind_id')
    .where(inPart(part))
    .where(stepIsDue(kind, 'plan_steps.status'))
    .where(mayAdvance(host))
    .where('p.origin', '<>', sql.lit('dream'))
    .where((eb) =>
      eb.or([
        eb('plan_steps.status', '=', sql.lit('executing')),
        eb.and([notPaused(), eb.or([runningPlan(), eb.and([eb('p.status', '=', sql.lit('blocked')), eb('plan_steps.status', '<>', sql.lit('ready'))])])]),
      ]),
    );
}

/**
 * The timed read's lower bound, earlier than any due time. It changes no answer, only SQLite's
 * estimate: once ANALYZE has counted a backlog of ready steps (whose due time is null) in the
 * due index, a range bounded on one side, over five statuses, reads to it as most of the index,
 * and it scans the whole table instead (2.2 ms a pass with 20,000 waiting, and growing); bounded
 * on both sides, it probes each status's part of the index.
 */
const EPOCH = new Date(0).toISOString();

/**
 * The step (aliased as its table) is not waiting for an operator who has not answered yet: its
 * approval (joined as `a`) is not pending, its capability request (`r`) is not open, or it
 * waits for neither. Polling such a step would only read its request and keep it waiting (the
 * poll's decision is `keep`), and every pass with room did so for every open request; an answer
 * (approved, denied, expired, withdrawn, granted) wakes the loop, whose next pass finds the step.
 * A request that is gone counts as answered: the poll fails the step.
 */
function answered() {
  return sql<SqlBool>`(${sql.ref('plan_steps.status')} <> ${sql.lit('awaiting_approval')} or ${sql.ref('a.status')} is null or ${sql.ref('a.status')} <> ${sql.lit('pending')}) and (${sql.ref('plan_steps.status')} <> ${sql.lit('awaiting_grant')} or ${sql.ref('r.status')} is null or ${sql.ref('r.status')} <> ${sql.lit('open')})`;
}

/**
 * The due statuses a step waits in with no due time besides `ready`: chiefly for an operator's
 * answer. Written into the polled read as literals: as bind parameters its text would look like a
 * list of a batch's values, and the PostgreSQL store would send it unnamed and plan it anew on
 * every pass that reads it (pg-statements.ts), where the other due reads keep a generic plan.
 */
const POLLED_STATUSES = DUE_STEP_STATUSES.filter((s) => s !== 'ready');

/**
 * The three reads of due steps, in the order a pass takes them (ExecutorQueryRepository.dueSteps),
 * each of at most `limit` steps. Exported so tests can ask each store's planner how it reads them.
 * - timed: steps whose due time has come, soonest first. The index orders each status apart,
 *   so the store sorts these; they are the checks, retries and leases that fell due since the
 *   last pass: few, except after an outage. Both stores probe each status's part of the
 *   index (SQLite with the help of EPOCH, PostgreSQL of dueIndexPredicate).
 * - ready: ready steps with no due time, oldest first (ids follow creation): a walk of the
 *   index's part for `ready` that stops at the limit, however many are waiting. The order names
 *   next_run_at, null throughout, so that PostgreSQL sees the index's own order (an `is null`
 *   term does not take the column out of it, as an equality does).
 * - polled: the other steps with no due time, which a pass polls (chiefly for an operator's
 *   answer), oldest first, and only once there is something to find: a step whose approval is
 *   still pending, or whose capability request is still open, is left out (answered()).
 */
export function dueStepQueries(db: Kysely<Database>, kind: StoreKind, at: string, query: Affinity & { limit: number }) {
  return {
    timed: (limit = query.limit) => DUE_READS.timed.walk(db, kind, [limit, at], query.host),
    ready: (limit = query.limit) => DUE_READS.ready.walk(db, kind, [limit], query.host),
    polled: (limit = query.limit) => DUE_READS.polled.walk(db, kind, [limit], query.host),
  };
}

/** A part's steps as the reads of due steps select them, for a daemon of `host`. */
function dueStepsOf(db: Kysely<Database>, kind: StoreKind, host: string | null, part: string | null) {
  return actionableSteps(db, kind, host, part).selectAll('plan_steps');
}

/** The three reads of due steps (dueStepQueries), given at most how many steps to return, and the timed one the time. */
const DUE_READS = {
  timed: new DueRead((db, kind, [limit, at]: readonly [number, string], host) =>
    acrossParts(db, host, limit, ['next_run_at', 'id'], (part) => dueStepsOf(db, kind, host, part).where('plan_steps.next_run_at', '>=', EPOCH).where('plan_steps.next_run_at', '<=', at)),
  ),
  ready: new DueRead((db, kind, [limit]: readonly [number], host) =>
    acrossParts(db, host, limit, ['next_run_at', 'id'], (part) => dueStepsOf(db, kind, host, part).where('plan_steps.status', '=', sql.lit('ready')).where('plan_steps.next_run_at', 'is', null)),
  ),
  polled: new DueRead((db, kind, [limit]: readonly [number], host) =>
    kind === 'postgres' ? polledWalks(db, kind, host, limit) : acrossParts(db, host, limit, ['id'], (part) => polledSteps(db, kind, host, part)),
  ),
};

/** A part's steps the polled read takes (dueStepQueries): in a polled status, with no due time, answered. */
function polledSteps(db: Kysely<Database>, kind: StoreKind, host: string | null, part: string | null) {
  return dueStepsOf(db, kind, host, part)
    .leftJoin('approval_requests as a', 'a.id', 'plan_steps.approval_id')
    .leftJoin('capability_requests as r', 'r.id', 'plan_steps.request_id')
    .where(oneOf('plan_steps.status', POLLED_STATUSES))
    .where('plan_steps.next_run_at', 'is', null)
    .where(answered());
}

/**
 * The polled read on PostgreSQL: a walk per part of the due index and per polled status, each in
 * the index's own order (host, status, a null due time, id), so that no walk sorts and each stops
 * at the limit; all of them together in id order again, cut to the limit. Read as one walk a part
 * over its four statuses (as SQLite reads it, through the index by name), a part is not in id
 * order, and the generic plan PostgreSQL is made to use (store.ts DUE_READS_CONNECTION) walked the
 * whole steps table in id order instead, filtering. SQLite keeps one walk a part: its statement is
 * a quarter the size, and on a store an operator has run ANALYZE on, SQLite prepares a statement
 * that compares a bound host with the index's samples again on every run, at a cost that follows
 * the statement's size (0.7 ms a run for this one with a walk per status).
 */
function polledWalks(db: Kysely<Database>, kind: StoreKind, host: string | null, limit: number) {
  const walks = hostParts(host).flatMap((part) =>
    POLLED_STATUSES.map((status) =>
      polledSteps(db, kind, host, part)
        .where('plan_steps.status', '=', sql.lit(status))
        .orderBy('plan_steps.host')
        .orderBy('plan_steps.status')
        .orderBy('plan_steps.next_run_at')
        .orderBy('plan_steps.id')
        .limit(limit),
    ),
  );
  const [first, ...rest] = walks.map((walk, i) => db.selectFrom(walk.as(`walk${i}`)).selectAll());
  return rest
    .reduce((all, next) => all.unionAll(next), first!)
    .orderBy('id')
    .limit(limit);
}

/** The soonest due time after `at` in each part of the due index a daemon walks: a row per part. */
const NEXT_DUE = new DueRead((db, kind, [at]: readonly [string], host) =>
  partsTogether(host, (part) =>
    actionableSteps(db, kind, host, part)
      .select((eb) => eb.fn.min('plan_steps.next_run_at').as('due'))
      .where('plan_steps.next_run_at', '>', at),
  ),
);

/**
 * See ExecutorQueryRepository.nextDueAt; exported so tests can ask the planner about indexes. The
 * soonest due time in each part of the due index the daemon walks: a row per part.
 */
export function nextDueQuery(db: Kysely<Database>, kind: StoreKind, at: string, host: string | null) {
  return NEXT_DUE.walk(db, kind, [at], host);
}

/** Steps claimed under a lease that runs out after the time given (ExecutorQueryRepository.heldClaims), latest lease last. */
const HELD_CLAIMS = new DueRead((db, kind, [limit, now]: readonly [number, string], host) =>
  acrossParts(db, host, limit, ['next_run_at'], (part) =>
    db
      .selectFrom('plan_steps')
      .innerJoin('minds as m', 'm.id', 'plan_steps.mind_id')
      .selectAll('plan_steps')
      .where(inPart(part))
      .where(stepIsDue(kind, 'plan_steps.status'))
      .where('plan_steps.status', '=', sql.lit('executing'))
      .where('plan_steps.next_run_at', '>', now)
      .where('plan_steps.claimed_by', '<>', sql.lit(''))
      .where(mayAdvance(host)),
  ),
);

/** See ExecutorQueryRepository.heldClaims; exported so tests can ask the planner about indexes. */
export function heldClaimsQuery(db: Kysely<Database>, kind: StoreKind, now: string, query: Affinity & { limit: number }) {
  return HELD_CLAIMS.walk(db, kind, [query.limit, now], query.host);
}

/** See ExecutorQueryRepository.startablePlanIds; exported so tests can ask the planner about indexes. */
export function startablePlansQuery(db: Kysely<Database>, kind: StoreKind, query: PlanQuery): IndexWalk<{ id: string }> {
  // On SQLite by name: with ANALYZE's statistics it would rather find validated plans through the
  // live-plan index and sort them all (migration 0020). PostgreSQL walks the index of itself.
  const walk = throughIndex(kind, startablePlansSelect(db, kind, query), PLANS_FROM, 'from "plans" as "p" indexed by "plans_startable_idx" ');
  return { compile: () => walk.compile(), execute: async () => (await db.executeQuery(walk.compile())).rows };
}

function startablePlansSelect(db: Kysely<Database>, kind: StoreKind, query: PlanQuery) {
  return (
    db
      .selectFrom('plans as p')
      .innerJoin('minds as m', 'm.id', 'p.mind_id')
      .innerJoin('intentions as i', 'i.id', 'p.intention_id')
      .select('p.id')
      .where(livePlan(kind))
      // A literal, as plans_startable_idx's predicate (migration 0020) has it: the read walks that index.
      .where(sql<SqlBool>`${sql.ref('p.status')} = ${sql.lit('validated')}`)
      .where('p.origin', '<>', 'dream')
      .where(notPaused())
      .where(mayAdvance(query.host))
      .where('i.status', '<>', 'suspended')
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(query.limit)
  );
}

/** See ExecutorQueryRepository.planIdsToSettle; exported so tests can ask the planner about indexes. */
export function plansToSettleQuery(db: Kysely<Database>, kind: StoreKind, query: PlanQuery) {
  const finals = FINAL_STEP_STATUSES.map((s) => sql.lit(s));
  const stepOfPlan = (status: RawBuilder<SqlBool>) =>
    db
      .selectFrom('plan_steps as s')
      .select('s.id')
      .where(sql<SqlBool>`${sql.ref('s.plan_id')} = ${sql.ref('p.id')}`)
      .where(status);
  const inStatus = (...statuses: string[]) => sql<SqlBool>`${sql.ref('s.status')} in (${sql.join(statuses.map((s) => sql.lit(s)))})`;
  const planIs = (status: string) => sql<SqlBool>`${sql.ref('p.status')} = ${sql.lit(status)}`;
  return db
    .selectFrom('plans as p')
    .innerJoin('minds as m', 'm.id', 'p.mind_id')
    .select('p.id')
    .where(livePlan(kind))
    .where(runningAmongLive())
    .where('p.origin', '<>', 'dream')
    .where(mayAdvance(query.host))
    .where((eb) =>
      eb.or([
        eb.exists(stepOfPlan(sql<SqlBool>`${sql.ref('s.status')} in (${sql.lit('pending')}, ${sql.lit('failed')})`)),
        eb.not(eb.exists(stepOfPlan(sql<SqlBool>`${sql.ref('s.status')} not in (${sql.join(finals)})`))),
        // What the plan shows no longer matches its steps (settle.ts, runningStatus): a crash
        // between a step's move and its plan's settling left it behind.
        eb.and([planIs('executing'), eb.not(eb.exists(stepOfPlan(inStatus('ready', 'executing')))), eb.exists(stepOfPlan(inStatus('waiting', 'awaiting_approval', 'awaiting_grant')))]),
        eb.and([planIs('waiting'), eb.or([eb.exists(stepOfPlan(inStatus('ready', 'executing', 'awaiting_approval', 'awaiting_grant'))), eb.not(eb.exists(stepOfPlan(inStatus('waiting'))))])]),
        eb.and([planIs('awaiting_approval'), eb.or([eb.exists(stepOfPlan(inStatus('ready', 'executing'))), eb.not(eb.exists(stepOfPlan(inStatus('awaiting_approval', 'awaiting_grant'))))])]),
      ]),
    )
    .orderBy('p.updated_at')
    .orderBy('p.id')
    .limit(query.limit);
}

/**
 * What performing an approved plan step starts from (Executor.performApproval): the request, the
 * mind it names, the mind's policy rules and active commitments, and the step's plan with its
 * steps and intention. Each is absent when not found.
 */
export interface ApprovalScene {
  approval: ApprovalRecord | undefined;
  mind: MindRecord | undefined;
  rules: PolicyRuleRecord[];
  commitments: CommitmentRecord[];
  plan: PlanWithSteps | undefined;
  intention: IntentionRecord | undefined;
}

const approvalById = (db: Kysely<Database>, id: string) => db.selectFrom('approval_requests').selectAll().where('id', '=', id);
const mindById = (db: Kysely<Database>, id: string) => db.selectFrom('minds').selectAll().where('id', '=', id);

/**
 * The row `query` finds in `table`, as JSON: `select to_json(<table>) from <table> where …`. The
 * whole-row reference leaves the planner no subquery to pull up: with kysely's jsonObjectFrom
 * and jsonArrayFrom (`select to_json(obj) from (<query>) as obj`, an ordered subquery per list)
 * planning the approval scene took 0.75 ms, flat 0.5 ms, and PostgreSQL plans it anew for the
 * first five runs on each connection.
 */
function rowJson<T extends keyof Database & string>(query: SelectQueryBuilder<Database, T, object>, table: T) {
  return query.clearSelect().select(sql<Selectable<Database[T]>>`to_json(${sql.table(table)})`.as('json'));
}

/**
 * The rows `query` finds in `table`, as a JSON array in the query's own order (its ORDER BY moved
 * into the aggregate): `coalesce(json_agg(<table> order by …), '[]')`.
 */
function rowsJson<T extends keyof Database & string>(query: SelectQueryBuilder<Database, T, object>, table: T) {
  const order = query.toOperationNode().orderBy;
  const ordered = order ? sql` ${{ toOperationNode: () => order }}` : sql``;
  return query
    .clearSelect()
    .clearOrderBy()
    .select(sql<Selectable<Database[T]>[]>`coalesce(json_agg(${sql.table(table)}${ordered}), '[]')`.as('json'));
}

/** What the approval scene's statement returns: a JSON value per part, a list empty rather than null. */
interface ApprovalSceneRow {
  approval: Selectable<Database['approval_requests']> | null;
  mind: Selectable<Database['minds']> | null;
  rules: Selectable<Database['policy_rules']>[];
  commitments: Selectable<Database['commitments']>[];
  plan: Selectable<Database['plans']> | null;
  steps: Selectable<Database['plan_steps']>[];
  intention: Selectable<Database['intentions']> | null;
}

/** The approval scene on PostgreSQL, one statement of JSON values, compiled once. */
const APPROVAL_SCENE = new QueryTemplate<readonly [string, string, string], ApprovalSceneRow>(
  (db, [approvalId, mindId, stepId]) =>
    db.selectNoFrom([
      rowJson(approvalById(db, approvalId), 'approval_requests').as('approval'),
      rowJson(mindById(db, mindId), 'minds').as('mind'),
      rowsJson(rulesOfMind(db, mindId), 'policy_rules').as('rules'),
      rowsJson(activeCommitmentsOf(db, mindId), 'commitments').as('commitments'),
      rowJson(planOfStep(db, stepId), 'plans').as('plan'),
      rowsJson(stepsOfPlanOfStep(db, stepId), 'plan_steps').as('steps'),
      rowJson(intentionOfStep(db, stepId), 'intentions').as('intention'),
    ]) as Compilable<ApprovalSceneRow>,
);

/**
 * The approval scene's reads on SQLite, each compiled once: in process they run one after
 * another, and building seven queries anew took about a third of the time from an approval's
 * wake-up to its claim.
 */
const SCENE_READS = {
  approval: new QueryTemplate<readonly [string], Selectable<Database['approval_requests']>>((db, [id]) => approvalById(db, id)),
  mind: new QueryTemplate<readonly [string], Selectable<Database['minds']>>((db, [id]) => mindById(db, id)),
  rules: new QueryTemplate<readonly [string], Selectable<Database['policy_rules']>>((db, [mindId]) => rulesOfMind(db, mindId)),
  commitments: new QueryTemplate<readonly [string], Selectable<Database['commitments']>>((db, [mindId]) => activeCommitmentsOf(db, mindId)),
  plan: new QueryTemplate<readonly [string], Selectable<Database['plans']>>((db, [stepId]) => planOfStep(db, stepId)),
  steps: new QueryTemplate<readonly [string], Selectable<Database['plan_steps']>>((db, [stepId]) => stepsOfPlanOfStep(db, stepId)),
  intention: new QueryTemplate<readonly [string], Selectable<Database['intentions']>>((db, [stepId]) => intentionOfStep(db, stepId)),
};

/** A well-formed id that no row has (the nil UUID; ids are generated as v7). */
const NO_ROW = '00000000-0000-0000-0000-000000000000';

export class ExecutorQueryRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * The approval scene of `approvalId`, read for the mind and step its wake-up names. On
   * PostgreSQL it is one statement on the approval connection (APPROVAL_CONNECTION), each part a
   * JSON value: the time from an approval to its claim in another process is mostly round trips,
   * and seven reads side by side kept seven server processes and the client busy for 2-3 ms on a
   * shared machine. On SQLite, in process, the reads run one after another (SCENE_READS).
   */
  async approvalScene(approvalId: string, mindId: string, stepId: string): Promise<ApprovalScene> {
    const { db, approvalDb, codec } = this.#ctx;
    const read =
      codec.kind === 'postgres'
        ? // A JSON timestamp is ISO text where pg gives a Date; the decoders read both alike.
          (await approvalDb.executeQuery(APPROVAL_SCENE.compile(approvalDb, codec.kind, [approvalId, mindId, stepId]))).rows[0]!
        : await (async () => {
            const rows = async <Row>(template: QueryTemplate<readonly [string], Row>, arg: string) => (await db.executeQuery(template.compile(db, codec.kind, [arg]))).rows;
            return {
              approval: (await rows(SCENE_READS.approval, approvalId))[0],
              mind: (await rows(SCENE_READS.mind, mindId))[0],
              rules: await rows(SCENE_READS.rules, mindId),
              commitments: await rows(SCENE_READS.commitments, mindId),
              plan: (await rows(SCENE_READS.plan, stepId))[0],
              steps: await rows(SCENE_READS.steps, stepId),
              intention: (await rows(SCENE_READS.intention, stepId))[0],
            };
          })();
    return {
      approval: read.approval ? decodeApproval(read.approval, codec) : undefined,
      mind: read.mind ? decodeMind(read.mind, codec) : undefined,
      rules: read.rules.map((row) => decodePolicyRule(row, codec)),
      commitments: read.commitments.map((row) => decodeCommitment(row, codec)),
      plan: read.plan
        ? withSteps(
            decodePlan(read.plan, codec),
            read.steps.map((row) => decodeStep(row, codec)),
          )
        : undefined,
      intention: read.intention ? decodeIntention(read.intention, codec) : undefined,
    };
  }

  /**
   * Readies the approval connection before any approval needs it (the executor calls it as it
   * starts): on PostgreSQL opens it and prepares the scene read there, by reading the scene of an
   * id no row has, so the first approval after a daemon starts waits neither for a connection
   * (about 5 ms here) nor for the server to load those tables' catalog entries. Reads nothing on
   * SQLite, where there is no connection to open.
   */
  async readyForApprovals(): Promise<void> {
    if (this.#ctx.codec.kind !== 'postgres') return;
    await this.approvalScene(NO_ROW, NO_ROW, NO_ROW);
  }

  /**
   * The due steps of minds this daemon may advance, at most `limit`, in the order a pass takes
   * them (docs/executor.md, "The order of due work"): first the steps whose due time has come (a
   * wait's or monitor's check, a retry after its backoff, a lease run out), soonest first; then
   * ready steps, oldest first (ids follow creation); then steps whose operator has answered (an
   * approval decided or expired, a capability request granted or denied), oldest first. Checks
   * promised for a given time come before work that is merely ready, and older work before newer,
   * so a flood of ready work does not push a verification past its window. Up to three
   * statements, each a walk of the due index that stops at what is left of the limit; a later one
   * only when the earlier leave room.
   */
  async dueSteps(query: DueStepQuery): Promise<StepRecord[]> {
    const { dueReadDb, codec } = this.#ctx;
    const tiers = dueStepQueries(dueReadDb, codec.kind, codec.time(query.now), query);
    const rows = await tiers.timed().execute();
    if (rows.length < query.limit) rows.push(...(await tiers.ready(query.limit - rows.length).execute()));
    if (rows.length < query.limit) rows.push(...(await tiers.polled(query.limit - rows.length).execute()));
    return rows.map((row) => decodeStep(row, codec));
  }

  /**
   * When the next step that is not due yet becomes due (a wait's or monitor's next check, a
   * retry's backoff, a lease running out), among the steps dueSteps would return then, or the
   * next pending approval expires, whichever is sooner; null when nothing is scheduled. The executor loop sleeps until then at the latest, so work found only by
   * its time is not late by up to a whole tick interval.
   */
  async nextDueAt(query: Affinity & { now: Date }): Promise<Date | null> {
    const { db, codec } = this.#ctx;
    const at = codec.time(query.now);
    // On the store's own connections, planned for each time: a generic plan cannot tell how few
    // steps are due after `at`, and read the unbound part of the steps table whole.
    const steps = await nextDueQuery(db, codec.kind, at, query.host).execute();
    // A pending approval's expiry closes it, which fails the step waiting for it: due work too.
    const approval = await db
      .selectFrom('approval_requests as a')
      .innerJoin('minds as m', 'm.id', 'a.mind_id')
      .select((eb) => eb.fn.min('a.expires_at').as('due'))
      .where('a.status', '=', 'pending')
      .where('a.expires_at', '>', at)
      .where(mayAdvance(query.host))
      .executeTakeFirst();
    const times = [...steps.map((step) => step.due), approval?.due].flatMap((t) => (t === null || t === undefined ? [] : [codec.readTime(t)]));
    return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
  }

  /**
   * Validated plans the executor may start, oldest first: not drafts (they never leave `draft`),
   * not dream plans, not paused plans, not plans of a disabled mind or of a mind bound elsewhere,
   * and not while their intention is suspended. A plan whose intention has closed is returned too, so the
   * caller can abandon it instead of finding it again on every tick.
   */
  async startablePlanIds(query: PlanQuery): Promise<string[]> {
    const rows = await startablePlansQuery(this.#ctx.db, this.#ctx.codec.kind, query).execute();
    return rows.map((row) => row.id);
  }

  /**
   * Running plans (executing, waiting, awaiting_approval) with something to settle: a pending step (which may now be promoted or
   * cancelled), a failed step (the plan is reconsidered), no open step at all (the plan can
   * close), or a status that no longer says what its steps wait for. A crash between finishing a
   * step and settling its plan is repaired here.
   */
  async planIdsToSettle(query: PlanQuery): Promise<string[]> {
    const rows = await plansToSettleQuery(this.#ctx.db, this.#ctx.codec.kind, query).execute();
    return rows.map((row) => row.id);
  }

  /**
   * Plans that closed (superseded, failed, abandoned, completed) while one of their steps still
   * waits: typically a step that was mid-invocation when its plan was replanned and then came
   * back awaiting an approval. Its approval or request must be withdrawn, not left for an
   * operator to approve for a plan nobody runs. Served by the due index.
   */
  async closedPlansWithOpenWaits(query: PlanQuery): Promise<string[]> {
    const { db, codec } = this.#ctx;
    const plans = partsTogether(query.host, (part) =>
      db
        .selectFrom('plan_steps')
        .innerJoin('plans as p', 'p.id', 'plan_steps.plan_id')
        .innerJoin('minds as m', 'm.id', 'plan_steps.mind_id')
        .select('p.id')
        .distinct()
        .where(inPart(part))
        .where(stepIsDue(codec.kind, 'plan_steps.status'))
        .where('plan_steps.status', '<>', 'executing')
        .where(oneOf('p.status', ['superseded', 'failed', 'abandoned', 'completed']))
        .where(mayAdvance(query.host)),
    );
    const rows = await plans.limit(query.limit).execute();
    return rows.map((row) => row.id);
  }

  /**
   * Running plans of minds that took a commitment after the plan was made: pairs of plan and
   * commitment, for the executor to check whether a step still to run is now bound by it.
   * Served by the live-plans index; the commitments joined are only the mind's active ones.
   */
  async plansBehindCommitments(query: PlanQuery): Promise<{ planId: string; commitmentId: string }[]> {
    const rows = await this.#ctx.db
      .selectFrom('plans as p')
      .innerJoin('minds as m', 'm.id', 'p.mind_id')
      .innerJoin('commitments as c', 'c.mind_id', 'p.mind_id')
      .select(['p.id as planId', 'c.id as commitmentId'])
      .where(livePlan(this.#ctx.codec.kind))
      .where(runningAmongLive())
      .where('p.origin', '<>', 'dream')
      .where(mayAdvance(query.host))
      .where('c.status', '=', 'active')
      .where(sql<SqlBool>`${sql.ref('c.created_at')} > ${sql.ref('p.created_at')}`)
      .orderBy('p.created_at')
      .orderBy('p.id')
      .limit(query.limit)
      .execute();
    return rows;
  }

  /**
   * Plans left in `replanning` since before `before`: the executor that was replanning them
   * stopped part-way. Only plans of minds this daemon may advance.
   */
  async stalledReplanIds(before: Date, query: PlanQuery): Promise<string[]> {
    const { db, codec } = this.#ctx;
    const rows = await db
      .selectFrom('plans as p')
      .innerJoin('minds as m', 'm.id', 'p.mind_id')
      .select('p.id')
      .where(livePlan(this.#ctx.codec.kind))
      .where('p.status', '=', 'replanning')
      .where('p.updated_at', '<', codec.time(before))
      .where(mayAdvance(query.host))
      .orderBy('p.updated_at')
      .limit(query.limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Steps claimed under a lease that has not run out yet, with their claimant, of plans this
   * daemon may advance: the candidates for taking over from a claimant known to be gone. Few at
   * any time (only steps in the middle of an act), and served by the due index.
   */
  async heldClaims(query: DueStepQuery): Promise<StepRecord[]> {
    const { dueReadDb, codec } = this.#ctx;
    const rows = await heldClaimsQuery(dueReadDb, codec.kind, codec.time(query.now), query).execute();
    return rows.map((row) => decodeStep(row, codec));
  }

  /**
   * Approved actions no executor has taken up yet, that were not raised by a plan step (a step's
   * approval is performed through its step): one-off calls an operator approved, of minds this
   * daemon may advance. Oldest first.
   */
  async approvedActionIds(query: PlanQuery): Promise<string[]> {
    const rows = await this.#ctx.db
      .selectFrom('approval_requests as a')
      .innerJoin('minds as m', 'm.id', 'a.mind_id')
      .select('a.id')
      .where('a.status', '=', 'approved')
      .where('a.execution_id', 'is', null)
      // `_` matches any one character here, which no other origin's spelling makes ambiguous.
      .where('a.origin', 'not like', 'plan_step:%')
      .where(mayAdvance(query.host))
      .orderBy('a.created_at')
      .limit(query.limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Approved one-off actions claimed by an executor (at or before `claimedBefore`, when given)
   * that are still `approved`: acts in flight, or acts whose executor stopped mid-way or is still
   * acting long past its capability's timeout. Each with the status of the execution its claim
   * names (null when there is no such row: a read or an idempotent action, which writes none
   * ahead). Of minds this daemon may advance, oldest claim first. Few at any time: only acts in
   * flight are claimed.
   */
  async claimedApprovedActions(query: PlanQuery & { claimedBefore?: Date }): Promise<{ approval: ApprovalRecord; execution: 'started' | 'succeeded' | 'failed' | null }[]> {
    const { db, codec } = this.#ctx;
    const rows = await db
      .selectFrom('approval_requests as a')
      .innerJoin('minds as m', 'm.id', 'a.mind_id')
      .leftJoin('tool_executions as e', 'e.id', 'a.execution_id')
      .selectAll('a')
      .select('e.status as execution_status')
      .where('a.status', '=', 'approved')
      .where('a.execution_id', 'is not', null)
      .where('a.origin', 'not like', 'plan_step:%')
      .$if(query.claimedBefore !== undefined, (q) => q.where('a.updated_at', '<=', codec.time(query.claimedBefore!)))
      .where(mayAdvance(query.host))
      .orderBy('a.updated_at')
      .limit(query.limit)
      .execute();
    return rows.map(({ execution_status, ...row }) => ({ approval: decodeApproval(row, codec), execution: (execution_status as 'started' | 'succeeded' | 'failed' | null) ?? null }));
  }

  /**
   * The current status of each of `planIds`, of its intention and of each of its steps: a light
   * read (no plan or step bodies) for checking that plans read earlier in a pass are still as
   * they were read before deciding from them. Plans not found are absent.
   */
  async planStatuses(planIds: readonly string[]): Promise<Map<string, PlanStatuses>> {
    const found = new Map<string, PlanStatuses>();
    const unique = [...new Set(planIds)];
    const { db, codec } = this.#ctx;
    // One row a plan, its steps' statuses aggregated in position order (both stores order inside
    // the aggregate): settling checks every plan it touches, four or more steps each.
    const list = codec.kind === 'postgres' ? sql<string | null>`string_agg(s.status, ',' order by s.position)` : sql<string | null>`group_concat(s.status, ',' order by s.position)`;
    for (const chunk of chunksFor(codec.kind, unique)) {
      const rows = await db
        .selectFrom('plans as p')
        .innerJoin('intentions as i', 'i.id', 'p.intention_id')
        .leftJoin('plan_steps as s', 's.plan_id', 'p.id')
        .select(['p.id as planId', 'p.status as planStatus', 'i.status as intentionStatus', list.as('steps')])
        .where(isAnyOf(codec.kind, 'p.id', chunk, 'uuid'))
        .groupBy(['p.id', 'p.status', 'i.status'])
        .execute();
      for (const row of rows) found.set(row.planId, { plan: row.planStatus, intention: row.intentionStatus, steps: row.steps ?? '' });
    }
    return found;
  }

  /**
   * How many executions, approval requests and capability requests each of `origins` caused.
   * Served by the origin indexes; origins absent from the answer caused nothing.
   */
  async countByOrigin(origins: readonly string[]): Promise<OriginCounts> {
    const counts: OriginCounts = { executions: new Map(), approvals: new Map(), requests: new Map() };
    const list = [...new Set(origins.filter((o) => o !== ''))];
    if (list.length === 0) return counts;
    const { db, codec } = this.#ctx;
    const per = (table: 'tool_executions' | 'approval_requests' | 'capability_requests', chunk: string[]) =>
      db
        .selectFrom(table)
        .select([sql.lit(table).as('source'), 'origin', (eb) => eb.fn.countAll().as('n')])
        .where(hasOrigin())
        .where(isAnyOf(codec.kind, 'origin', chunk, 'text'))
        .groupBy('origin');
    const into = { tool_executions: counts.executions, approval_requests: counts.approvals, capability_requests: counts.requests };
    // A pass asks for the origins of all its plans at once: one statement on PostgreSQL, chunks on SQLite.
    for (const chunk of chunksFor(codec.kind, list)) {
      const rows = await per('tool_executions', chunk).unionAll(per('approval_requests', chunk)).unionAll(per('capability_requests', chunk)).execute();
      for (const row of rows) into[row.source as keyof typeof into].set(row.origin, codec.readInt(row.n));
    }
    return counts;
  }
}

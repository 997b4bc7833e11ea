// A mind's rows as portable values, for forking, exporting and importing a mind (docs/mind.md,
// "Forks, exports and imports"). Reading gives every carried row of one mind with its columns
// as JSON values (times as ISO-8601 text, JSON parsed, booleans, arrays, numbers), the same on
// both stores; writing takes such rows, already re-keyed and checked, and inserts them in an
// order the foreign keys accept. What is carried is exactly CARRIED_COLUMNS: approvals,
// capability requests, grants, executions, events, model calls and tokens never are.

import type { Kysely } from 'kysely';
import {
  COMMITMENT_STATUSES,
  INTENTION_REASONS,
  INTENTION_STATUSES,
  MIND_STATUSES,
  PLAN_ORIGINS,
  PLAN_STATUSES,
  POLICY_DECISIONS,
  PREDICTION_STATUSES,
  STEP_KINDS,
  STEP_STATUSES,
  WANT_ORIGINS,
  WANT_STATUSES,
} from '../../core/vocabulary.ts';
import type { Codec } from '../codec.ts';
import type { Database } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export type PortableValue = string | number | boolean | null | PortableValue[] | { [key: string]: PortableValue };
export type PortableRow = { [column: string]: PortableValue };

export type ColumnKind = 'id' | 'text' | 'int' | 'float' | 'bool' | 'time' | 'json' | 'text[]';

export interface ColumnSpec {
  kind: ColumnKind;
  nullable?: boolean;
  /** A closed vocabulary the value must come from. */
  oneOf?: readonly (string | number)[];
  /** For floats: the value must lie in [0, 1]. */
  unit?: boolean;
  /**
   * For JSON: what the readers of the column take it to be, an object or a list (of objects). A bundle is untrusted input: a belief's evidence given as an object imported, and
   * then every revision of that belief failed ("evidence is not iterable").
   */
  shape?: 'object' | 'list' | 'list of objects';
}

const id: ColumnSpec = { kind: 'id' };
const ref: ColumnSpec = { kind: 'id', nullable: true };
const text: ColumnSpec = { kind: 'text' };
const int: ColumnSpec = { kind: 'int' };
const bool: ColumnSpec = { kind: 'bool' };
const time: ColumnSpec = { kind: 'time' };
const maybeTime: ColumnSpec = { kind: 'time', nullable: true };
const object: ColumnSpec = { kind: 'json', shape: 'object' };
const maybeObject: ColumnSpec = { kind: 'json', shape: 'object', nullable: true };
const list: ColumnSpec = { kind: 'json', shape: 'list' };
const objects: ColumnSpec = { kind: 'json', shape: 'list of objects' };
const confidence: ColumnSpec = { kind: 'float', unit: true };
const among = (values: readonly (string | number)[]): ColumnSpec => ({ kind: typeof values[0] === 'number' ? 'int' : 'text', oneOf: values });

export const MIND_COLUMNS: Record<string, ColumnSpec> = {
  id,
  name: text,
  status: among(MIND_STATUSES),
  sandbox: bool,
  host: { kind: 'text', nullable: true },
  created_at: time,
  updated_at: time,
};

/** The tables a mind carries, in the order they are written (parents before the rows that point at them). */
export const CARRIED_COLUMNS = {
  policy_rules: { id, mind_id: id, capability: text, target_pattern: text, decision: among(POLICY_DECISIONS), approvers: among([1, 2]), created_at: time },
  commitments: {
    id,
    mind_id: id,
    kind: among(['require_approval']),
    capability: text,
    target_pattern: text,
    reason: text,
    status: among(COMMITMENT_STATUSES),
    created_at: time,
    released_at: maybeTime,
  },
  beliefs: { id, mind_id: id, statement: text, confidence, evidence: objects, version: int, created_at: time, updated_at: time },
  intentions: {
    id,
    mind_id: id,
    parent_id: ref,
    objective: text,
    means: maybeObject,
    belief_id: ref,
    origin: text,
    authored_by: text,
    status: among(INTENTION_STATUSES),
    reason: among(INTENTION_REASONS),
    require_approval: bool,
    created_at: time,
    updated_at: time,
    closed_at: maybeTime,
  },
  plans: {
    id,
    mind_id: id,
    intention_id: id,
    revision: int,
    supersedes: ref,
    superseded_by: ref,
    objective: text,
    origin: among(PLAN_ORIGINS),
    authored_by: text,
    strategy: text,
    status: among(PLAN_STATUSES),
    assumptions: objects,
    completion_criteria: text,
    abort_conditions: list,
    alternatives: objects,
    risk: text,
    estimate: object,
    actual: object,
    budget: object,
    validation: object,
    require_approval: bool,
    max_replans: int,
    llm_call: ref,
    status_reason: text,
    closed_at: maybeTime,
    created_at: time,
    updated_at: time,
  },
  plan_steps: {
    id,
    plan_id: id,
    mind_id: id,
    key: text,
    position: int,
    title: text,
    kind: among(STEP_KINDS),
    depends_on: { kind: 'text[]' },
    capability: text,
    target: text,
    params: object,
    require_approval: bool,
    expectation: maybeObject,
    precondition: maybeObject,
    spec: object,
    status: among(STEP_STATUSES),
    attempts: int,
    max_attempts: int,
    lease_until: maybeTime,
    next_run_at: maybeTime,
    approval_id: ref,
    request_id: ref,
    execution_id: ref,
    prediction_id: ref,
    intention_id: ref,
    result: maybeObject,
    observation: maybeObject,
    error: text,
    status_reason: text,
    claimed_by: text,
    started_at: maybeTime,
    finished_at: maybeTime,
    created_at: time,
    updated_at: time,
  },
  predictions: {
    id,
    mind_id: id,
    intention_id: ref,
    plan_id: ref,
    step_id: ref,
    belief_id: ref,
    execution_id: ref,
    event_id: ref,
    statement: text,
    verification: object,
    confidence,
    window_opens_at: time,
    window_closes_at: time,
    status: among(PREDICTION_STATUSES),
    outcome: maybeObject,
    resolved_at: maybeTime,
    created_at: time,
  },
  procedural_memories: {
    id,
    mind_id: id,
    intention_id: ref,
    plan_id: ref,
    objective: text,
    strategy: text,
    summary: text,
    steps: objects,
    confidence,
    verified: bool,
    revision: int,
    created_at: time,
  },
  wants: {
    id,
    mind_id: id,
    statement: text,
    origin: among(WANT_ORIGINS),
    status: among(WANT_STATUSES),
    reason: text,
    intention_id: ref,
    plan_id: ref,
    created_at: time,
    updated_at: time,
  },
} satisfies Record<string, Record<string, ColumnSpec>>;

/**
 * Columns of carried tables a bundle leaves out on purpose, taking their defaults on import. A
 * plan's pause (migration 0010) is an operator's hold on the plan where it runs, not part of the
 * mind: a fork or import quiesces every inherited open plan anyway, and a copy starts unpaused.
 */
export const UNCARRIED_COLUMNS: Partial<Record<keyof typeof CARRIED_COLUMNS, readonly string[]>> = {
  plans: ['paused_at', 'paused_by', 'pause_reason'],
  // A step's copy of its mind's host (migration 0019): written from the mind the copy is made as.
  plan_steps: ['host'],
};

export type CarriedTable = keyof typeof CARRIED_COLUMNS;
export const CARRIED_TABLES = Object.keys(CARRIED_COLUMNS) as CarriedTable[];

export interface MindRows {
  mind: PortableRow;
  tables: Record<CarriedTable, PortableRow[]>;
}

function toPortable(codec: Codec, spec: ColumnSpec, raw: unknown): PortableValue {
  if (raw === null || raw === undefined) return null;
  switch (spec.kind) {
    case 'time':
      return codec.readTime(raw).toISOString();
    case 'json':
      return codec.readJson<PortableValue>(raw);
    case 'bool':
      return codec.readBool(raw);
    case 'text[]':
      return codec.readTextArray(raw);
    case 'int':
      return codec.readInt(raw);
    case 'float':
      return Number(raw);
    default:
      return String(raw);
  }
}

function toStored(codec: Codec, spec: ColumnSpec, value: PortableValue): unknown {
  if (value === null) return null;
  switch (spec.kind) {
    case 'time':
      return codec.time(new Date(value as string));
    case 'json':
      return codec.json(value);
    case 'bool':
      return codec.bool(value as boolean);
    case 'text[]':
      return codec.textArray(value as string[]);
    default:
      return value;
  }
}

function portableRow(codec: Codec, columns: Record<string, ColumnSpec>, row: Record<string, unknown>): PortableRow {
  const out: PortableRow = {};
  for (const [name, spec] of Object.entries(columns)) out[name] = toPortable(codec, spec, row[name]);
  return out;
}

/** Rows per multi-row insert: well under either store's limit on bound parameters. */
const ROWS_PER_INSERT = 20;

export class MindBundleRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  /**
   * Every carried row of the mind, read in one transaction (repeatable read on PostgreSQL), so
   * a copy taken while the executor runs is one consistent moment. Undefined without the mind.
   */
  async read(mindId: string): Promise<MindRows | undefined> {
    const { db, codec } = this.#ctx;
    const work = async (tx: Kysely<Database>): Promise<MindRows | undefined> => {
      const mind = await tx.selectFrom('minds').selectAll().where('id', '=', mindId).executeTakeFirst();
      if (!mind) return undefined;
      const tables = {} as MindRows['tables'];
      for (const table of CARRIED_TABLES) {
        // biome-ignore lint/suspicious/noExplicitAny: the carried tables are named at run time, from the bundle's own list.
        const rows = await (tx as Kysely<any>).selectFrom(table).selectAll().where('mind_id', '=', mindId).orderBy('created_at').orderBy('id').execute();
        tables[table] = rows.map((row: Record<string, unknown>) => portableRow(codec, CARRIED_COLUMNS[table], row));
      }
      return { mind: portableRow(codec, MIND_COLUMNS, mind as unknown as Record<string, unknown>), tables };
    };
    if (db.isTransaction) return work(db);
    const transaction = db.transaction();
    return (this.#ctx.codec.kind === 'postgres' ? transaction.setIsolationLevel('repeatable read') : transaction).execute(work);
  }

  /**
   * Inserts a mind and its rows as given: ids, links and statuses are the caller's (already
   * re-keyed, quiesced and checked). Intentions and plans must list a parent before the rows
   * that point at it. Run it inside the caller's transaction: a refused row refuses them all.
   */
  async write(rows: MindRows): Promise<void> {
    const { db, codec } = this.#ctx;
    const stored = (columns: Record<string, ColumnSpec>, row: PortableRow) => Object.fromEntries(Object.entries(columns).map(([name, spec]) => [name, toStored(codec, spec, row[name] ?? null)]));
    // biome-ignore lint/suspicious/noExplicitAny: rows are written column by column from the bundle's own column list.
    await (db as Kysely<any>).insertInto('minds').values(stored(MIND_COLUMNS, rows.mind)).execute();
    for (const table of CARRIED_TABLES) {
      const list = rows.tables[table];
      for (let i = 0; i < list.length; i += ROWS_PER_INSERT) {
        const chunk = list.slice(i, i + ROWS_PER_INSERT).map((row) => stored(CARRIED_COLUMNS[table], row));
        if (table === 'plan_steps') for (const step of chunk) step.host = rows.mind.host ?? null;
        // biome-ignore lint/suspicious/noExplicitAny: the carried tables are named at run time, from the bundle's own list.
        await (db as Kysely<any>).insertInto(table).values(chunk).execute();
      }
    }
  }
}

// A mind bundle: one mind as a versioned JSON document, and the rules for turning one into a new
// mind (pure; the I/O is in copies.ts). See docs/mind.md, "Forks, exports and imports".
//
// A bundle carries the mind's policy, commitments, beliefs, predictions, procedural memories,
// wants, intentions and plans with their steps, row by row with the store's own columns. It
// never carries approvals, capability requests, grants, executions, events or model calls:
// authority belongs to the source mind, and history of acts stays where they were done.
//
// Making a mind from a bundle (a fork, an import) gives every row a new id and re-points the
// links, clears the links to what was not carried, and quiesces inherited work: open steps are
// blocked with their approval and request ids cleared, open plans blocked, live intentions
// suspended. Nothing inherited moves until an operator releases it.

import type { Problem } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { INPUT_LIMITS, inputProblems, type InputLimits } from '../core/input-limits.ts';
import type { PlanStatus, StepStatus } from '../core/vocabulary.ts';
import { CARRIED_COLUMNS, CARRIED_TABLES, MIND_COLUMNS, type CarriedTable, type ColumnSpec, type MindRows, type PortableRow, type PortableValue } from '../store/index.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export const BUNDLE_FORMAT = 'praxis.mind';
export const BUNDLE_VERSION = 1;

export interface MindBundle {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  /** When it was taken, ISO-8601. */
  exported_at: string;
  /** The mind's own row: id, name, status, sandbox, host, created_at, updated_at. */
  mind: PortableRow;
  /** Every carried table, each a list of rows with exactly the table's columns. */
  tables: Record<CarriedTable, PortableRow[]>;
}

export function bundleOf(rows: MindRows, exportedAt: Date): MindBundle {
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, exported_at: exportedAt.toISOString(), mind: rows.mind, tables: rows.tables };
}

/** Plans that could still run, and steps that could still move: what quiescing stops. */
export const QUIESCED_PLAN_STATUSES: readonly PlanStatus[] = ['validated', 'waiting', 'executing', 'awaiting_approval', 'replanning'];
export const QUIESCED_STEP_STATUSES: readonly StepStatus[] = ['pending', 'ready', 'executing', 'awaiting_approval', 'awaiting_grant', 'waiting'];
export const QUIESCED_REASON = 'inherited by a fork or import: quiesced until an operator releases it';

/**
 * Links between carried rows, table → column → the table it points into. A link that names no
 * carried row is cleared, except the two a row cannot exist without (REQUIRED_LINKS).
 */
const LINKS: Partial<Record<CarriedTable, Record<string, CarriedTable>>> = {
  intentions: { parent_id: 'intentions', belief_id: 'beliefs' },
  plans: { intention_id: 'intentions', supersedes: 'plans', superseded_by: 'plans' },
  plan_steps: { plan_id: 'plans', prediction_id: 'predictions', intention_id: 'intentions' },
  predictions: { intention_id: 'intentions', plan_id: 'plans', step_id: 'plan_steps', belief_id: 'beliefs' },
  procedural_memories: { intention_id: 'intentions', plan_id: 'plans' },
  wants: { intention_id: 'intentions', plan_id: 'plans' },
};
const REQUIRED_LINKS: readonly [CarriedTable, string][] = [
  ['plans', 'intention_id'],
  ['plan_steps', 'plan_id'],
];
/** Links to records a bundle does not carry (they belong to the source mind): always cleared. */
const SEVERED: Partial<Record<CarriedTable, Record<string, PortableValue>>> = {
  plans: { llm_call: null },
  plan_steps: { approval_id: null, request_id: null, execution_id: null, lease_until: null, claimed_by: '' },
  predictions: { execution_id: null, event_id: null },
};

const MAX_PROBLEMS = 20;
/** A bundle is one document of many rows: the input rule applies, with room for a whole mind. */
const BUNDLE_LIMITS = { ...INPUT_LIMITS, maxArrayLength: 1_000_000, maxObjectKeys: 10_000, maxValues: 50_000_000 } as unknown as InputLimits;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EXPORTED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

function jsonShapeProblem(spec: ColumnSpec, value: unknown): string | null {
  switch (spec.shape) {
    case 'object':
      return isObject(value) ? null : 'must be an object';
    case 'list':
      return Array.isArray(value) ? null : 'must be a list';
    case 'list of objects':
      return Array.isArray(value) && value.every(isObject) ? null : 'must be a list of objects';
    default:
      return null;
  }
}

function valueProblem(spec: ColumnSpec, value: unknown): string | null {
  if (value === null) return spec.nullable ? null : 'may not be null';
  if (value === undefined) return 'is missing';
  switch (spec.kind) {
    case 'id':
      if (!isId(value)) return 'must be an id (a UUID in lower case)';
      break;
    case 'text':
      if (typeof value !== 'string') return 'must be text';
      break;
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'must be a whole number';
      break;
    case 'float':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (spec.unit && (value < 0 || value > 1)) return 'must be a number from 0 to 1';
      break;
    case 'bool':
      if (typeof value !== 'boolean') return 'must be true or false';
      break;
    case 'time':
      // As exports write them (toISOString): a four-digit year in UTC. `+010000-01-01T…` parses,
      // but sorts before every other time as SQLite's text and is refused by PostgreSQL.
      if (typeof value !== 'string' || !EXPORTED_TIME.test(value) || Number.isNaN(Date.parse(value))) return 'must be a UTC time as exports write it (2026-12-07T06:00:00.000Z)';
      break;
    case 'text[]':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'must be a list of texts';
      break;
    case 'json':
      return jsonShapeProblem(spec, value);
  }
  if (spec.oneOf && !spec.oneOf.includes(value as string | number)) return `must be one of ${spec.oneOf.join(', ')}`;
  return null;
}

function rowProblems(columns: Record<string, ColumnSpec>, row: unknown, path: string, report: (code: ErrorCode, path: string, message: string) => void): void {
  if (!isObject(row)) {
    report('invalid_row', path, 'a row must be an object of columns');
    return;
  }
  for (const name of Object.keys(row)) if (!(name in columns)) report('unknown_column', `${path}.${name}`, 'is not a column this bundle version carries');
  for (const [name, spec] of Object.entries(columns)) {
    const problem = valueProblem(spec, row[name]);
    if (problem) report(row[name] === undefined ? 'missing_column' : 'invalid_value', `${path}.${name}`, problem);
  }
}

export type CheckedBundle = { ok: true; bundle: MindBundle } | { ok: false; problems: Problem[] };

/**
 * Whether untrusted input is a bundle this Praxis can make a mind from: the format and version,
 * the input rule, every row's columns and values, ids unique, every row of the bundle's mind,
 * and the links a row cannot exist without. Problems name their path in the bundle.
 */
export function checkBundle(input: unknown): CheckedBundle {
  const problems: Problem[] = [];
  let more = 0;
  const report = (code: ErrorCode, path: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ code, path, message });
    else more += 1;
  };
  const done = (): CheckedBundle => {
    if (more > 0) problems.push({ code: 'more_problems', path: '', message: `${more} more problem(s) not listed` });
    return problems.length > 0 ? { ok: false, problems } : { ok: true, bundle: input as MindBundle };
  };
  if (!isObject(input)) {
    report('invalid_bundle', '', 'a mind bundle is a JSON object');
    return done();
  }
  if (input.format !== BUNDLE_FORMAT) {
    report('unknown_bundle_format', 'format', `not a mind bundle: format must be "${BUNDLE_FORMAT}"`);
    return done();
  }
  if (input.version !== BUNDLE_VERSION) {
    report('unsupported_bundle_version', 'version', `this Praxis reads mind bundles of version ${BUNDLE_VERSION}, not ${JSON.stringify(input.version)}`);
    return done();
  }
  for (const problem of inputProblems(input, '', BUNDLE_LIMITS)) report(problem.code, problem.path, problem.message);
  if (problems.length > 0) return done();
  for (const key of Object.keys(input)) {
    if (!['format', 'version', 'exported_at', 'mind', 'tables'].includes(key)) report('unknown_field', key, 'is not part of a mind bundle');
  }
  if (typeof input.exported_at !== 'string' || Number.isNaN(Date.parse(input.exported_at))) report('invalid_value', 'exported_at', 'must be an ISO-8601 time');
  rowProblems(MIND_COLUMNS, input.mind, 'mind', report);
  const tables = input.tables;
  if (!isObject(tables)) {
    report('invalid_bundle', 'tables', 'tables must be an object of row lists');
    return done();
  }
  for (const key of Object.keys(tables)) if (!(CARRIED_TABLES as string[]).includes(key)) report('unknown_table', `tables.${key}`, 'is not a table a mind bundle carries');
  for (const table of CARRIED_TABLES) {
    const rows = tables[table];
    if (!Array.isArray(rows)) {
      report(rows === undefined ? 'missing_table' : 'invalid_bundle', `tables.${table}`, 'must be a list of rows');
      continue;
    }
    rows.forEach((row, i) => rowProblems(CARRIED_COLUMNS[table], row, `tables.${table}[${i}]`, report));
  }
  if (problems.length > 0) return done();

  const mindId = (input.mind as PortableRow).id;
  const bundle = input as unknown as MindBundle;
  const ids = new Map<CarriedTable, Set<string>>();
  for (const table of CARRIED_TABLES) {
    const seen = new Set<string>();
    bundle.tables[table].forEach((row, i) => {
      if (seen.has(row.id as string)) report('duplicate_id', `tables.${table}[${i}].id`, `another ${table} row has id ${String(row.id)}`);
      seen.add(row.id as string);
      if (row.mind_id !== mindId) report('foreign_row', `tables.${table}[${i}].mind_id`, "the row belongs to another mind than the bundle's");
    });
    ids.set(table, seen);
  }
  for (const [table, column] of REQUIRED_LINKS) {
    const into = LINKS[table]![column]!;
    bundle.tables[table].forEach((row, i) => {
      if (!ids.get(into)!.has(row[column] as string)) report('dangling_reference', `tables.${table}[${i}].${column}`, `names no row of ${into} in the bundle`);
    });
  }
  return done();
}

export interface Quiesced {
  plans: { id: string; intentionId: string }[];
  steps: { id: string; planId: string; intentionId: string; key: string }[];
  intentions: string[];
}

export interface NewMindOptions {
  name: string;
  status: 'active' | 'disabled';
  sandbox: boolean;
  host: string | null;
  now: Date;
  newId: () => string;
}

/** Rows ordered so that every row comes after the one its `column` names (parents first). */
function parentsFirst(rows: PortableRow[], column: string): PortableRow[] {
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  const placed = new Set<string>();
  const ordered: PortableRow[] = [];
  const place = (row: PortableRow, trail: Set<string>) => {
    const id = row.id as string;
    if (placed.has(id) || trail.has(id)) return;
    trail.add(id);
    const parent = byId.get(row[column] as string);
    if (parent) place(parent, trail);
    placed.add(id);
    ordered.push(row);
  };
  for (const row of rows) place(row, new Set());
  return ordered;
}

/**
 * The rows of a new mind made from a checked bundle: new ids everywhere, links re-pointed (or
 * cleared when they name nothing carried), links to uncarried records severed, and inherited
 * work quiesced. Also says what was quiesced, for the events the caller records.
 */
export function mindFromBundle(bundle: MindBundle, options: NewMindOptions): { rows: MindRows; quiesced: Quiesced } {
  const now = options.now.toISOString();
  const mindId = options.newId();
  const rekey = new Map<CarriedTable, Map<string, string>>();
  for (const table of CARRIED_TABLES) rekey.set(table, new Map(bundle.tables[table].map((row) => [row.id as string, options.newId()])));
  const pointTo = (table: CarriedTable, old: PortableValue) => (typeof old === 'string' ? (rekey.get(table)!.get(old) ?? null) : null);

  const tables = {} as MindRows['tables'];
  for (const table of CARRIED_TABLES) {
    tables[table] = bundle.tables[table].map((row) => {
      const copy: PortableRow = { ...row, id: pointTo(table, row.id ?? null), mind_id: mindId, ...SEVERED[table] };
      for (const [column, into] of Object.entries(LINKS[table] ?? {})) copy[column] = pointTo(into, row[column] ?? null);
      return copy;
    });
  }
  tables.intentions = parentsFirst(tables.intentions, 'parent_id');
  tables.plans = parentsFirst(tables.plans, 'supersedes').map((plan): PortableRow => {
    const assumptions = plan.assumptions ?? [];
    // An assumption names its belief by id: the copy's own belief.
    const rekeyed = Array.isArray(assumptions)
      ? assumptions.map((a) => (isObject(a) && typeof a.belief_id === 'string' ? { ...a, belief_id: pointTo('beliefs', a.belief_id) ?? a.belief_id } : a))
      : assumptions;
    return { ...plan, assumptions: rekeyed };
  });

  const quiesced: Quiesced = { plans: [], steps: [], intentions: [] };
  const planOf = new Map(tables.plans.map((p) => [p.id as string, p]));
  for (const plan of tables.plans) {
    if (!QUIESCED_PLAN_STATUSES.includes(plan.status as PlanStatus)) continue;
    Object.assign(plan, { status: 'blocked', status_reason: QUIESCED_REASON, updated_at: now });
    quiesced.plans.push({ id: plan.id as string, intentionId: plan.intention_id as string });
  }
  for (const step of tables.plan_steps) {
    const plan = planOf.get(step.plan_id as string)!;
    // A draft never runs, and a closed plan's steps were settled with it.
    if (plan.status !== 'blocked' || !QUIESCED_STEP_STATUSES.includes(step.status as StepStatus)) continue;
    Object.assign(step, { status: 'blocked', status_reason: QUIESCED_REASON, next_run_at: null, updated_at: now });
    quiesced.steps.push({ id: step.id as string, planId: plan.id as string, intentionId: plan.intention_id as string, key: step.key as string });
  }
  for (const intention of tables.intentions) {
    if (intention.status !== 'active' && intention.status !== 'blocked') continue;
    Object.assign(intention, { status: 'suspended', reason: 'quiesced', updated_at: now });
    quiesced.intentions.push(intention.id as string);
  }

  const mind: PortableRow = { id: mindId, name: options.name, status: options.status, sandbox: options.sandbox, host: options.host, created_at: now, updated_at: now };
  return { rows: { mind, tables }, quiesced };
}

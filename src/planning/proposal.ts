// Turns untrusted plan input (a model's proposal, an operator's file, an API body) into a
// PlanDraft. Parsing owns shape; validate() owns meaning. Anything that could carry authority
// or claim progress is dropped and reported, so a proposal can never approve itself, mark
// itself done or choose its own provenance.

import type { Alternative, Assumption, Budget, JsonObject, PlanDraft, Resources, StepDraft, ValidationIssue } from '../core/plan.ts';
import type { AbortConditionDraft } from '../core/abort-conditions.ts';
import { RESOURCE_KEYS } from '../core/plan.ts';
import type { StepKind } from '../core/vocabulary.ts';
import type { ErrorCode } from '../core/error-codes.ts';

export interface ParsedProposal {
  ok: true;
  draft: PlanDraft;
  /** Structural problems; the draft is still formed (with neutral defaults) so it can be stored as a draft. */
  errors: ValidationIssue[];
  /** Ignored claims of authority or progress. */
  warnings: ValidationIssue[];
  /** A path of the draft as a path of the input (entries the parser dropped shift the ones after them). */
  inputPath(path: string): string;
}
export interface RefusedProposal {
  ok: false;
  errors: ValidationIssue[];
}

/** Fields that would grant or assert authority. Authority comes only from policy, commitments, approvals and grants. */
const AUTHORITY_FIELDS = new Set([
  'authorised',
  'authorized',
  'authorisation',
  'authorization',
  'authority',
  'approved',
  'approved_by',
  'approval',
  'approval_id',
  'approvals',
  'pre_approved',
  'preapproved',
  'operator_approved',
  'grant',
  'grants',
  'grant_id',
  'granted',
  'permission',
  'permissions',
  'policy',
  'override',
  'bypass',
  'trusted',
  'skip_approval',
  'skip_validation',
  'locked',
]);

/** Fields that would claim progress or results. Only the executor records those, from observation. */
const PROGRESS_FIELDS = new Set([
  'status',
  'state',
  'status_reason',
  'completed',
  'complete',
  'done',
  'executed',
  'execution_id',
  'result',
  'results',
  'observation',
  'observations',
  'verified',
  'confirmed',
  'attempts',
  'started_at',
  'finished_at',
  'closed_at',
  'lease_until',
  'next_run_at',
  'progress',
  'outcome',
  'skipped',
  'actual',
  'prediction_id',
  'request_id',
]);

/** Fields that identify a stored plan or where it came from: set by Praxis, never by the proposer. */
const PROVENANCE_FIELDS = new Set([
  'id',
  'origin',
  'mind_id',
  'intention_id',
  'plan_id',
  'revision',
  'supersedes',
  'superseded_by',
  'validation',
  'llm_call',
  'created_at',
  'updated_at',
  'position',
  'max_replans',
]);

const ABORT_CONDITION_FIELDS = ['when', 'step', 'steps', 'statement'] as const;
const PLAN_FIELDS = ['objective', 'strategy', 'assumptions', 'completion_criteria', 'abort_conditions', 'risk', 'estimate', 'budget', 'alternatives', 'require_approval', 'steps'] as const;
const STEP_FIELDS = ['key', 'title', 'kind', 'depends_on', 'capability', 'target', 'params', 'expectation', 'precondition', 'max_attempts', 'require_approval', 'spec'] as const;
const CHECK_FIELDS = ['capability', 'params', 'field', 'comparison', 'value'];
const EXPECTATION_FIELDS = ['statement', 'confidence', 'within_seconds', 'check'];
const PRECONDITION_FIELDS = [...CHECK_FIELDS, 'statement', 'fulfils_intention'];
const SPEC_FIELDS = ['verifies', 'field', 'comparison', 'value', 'interval_seconds', 'stable_seconds', 'deadline_seconds', 'seconds', 'action', 'message', 'request'];
const REQUEST_FIELDS = ['capability', 'target_pattern', 'param_limits', 'duration_seconds', 'max_operations', 'reason', 'risk', 'mitigation', 'fallback', 'alternatives'];
const ASSUMPTION_FIELDS = ['statement', 'belief_id', 'min_confidence'];
const ALTERNATIVE_FIELDS = ['strategy', 'estimate', 'expected_confidence', 'score', 'selected', 'why'];

type Obj = { [key: string]: unknown };

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects problems while walking the input; every reader falls back to a neutral default. */
class Reader {
  readonly errors: ValidationIssue[] = [];
  readonly warnings: ValidationIssue[] = [];
  /**
   * Lists some of whose entries were dropped (reported as errors): for each, the input's index
   * of every entry kept, so that a later finding at `list[k]` is told at the entry's own index.
   */
  readonly kept = new Map<string, number[]>();

  /** The entries of `items` that `read` makes something of, remembering where they were. */
  entries<T>(items: readonly unknown[], path: string, read: (item: unknown, i: number) => T | null): T[] {
    const out: T[] = [];
    const from: number[] = [];
    items.forEach((item, i) => {
      const made = read(item, i);
      if (made === null) return;
      out.push(made);
      from.push(i);
    });
    if (from.length < items.length) this.kept.set(path, from);
    return out;
  }

  error(code: ErrorCode, path: string, message: string): void {
    this.errors.push({ code, message, path });
  }

  /**
   * Splits an object's keys into known ones (returned), claims (reported as ignored) and
   * anything else (an error: a typo must not silently change a plan's meaning).
   */
  fields(obj: Obj, known: readonly string[], path: string, what: string): void {
    for (const key of Object.keys(obj)) {
      const at = join(path, key);
      // `require_approval: false` is a claim wherever it appears (plan-format.md, "What a
      // proposal cannot say"): ignored with a warning, not refused as an unknown field. Where the
      // field does not belong, `true` is an unknown field like any other.
      if (key === 'require_approval' && (known.includes(key) || obj[key] === false)) {
        if (obj[key] === false) {
          this.warnings.push({
            code: 'ignored_authority_claim',
            path: at,
            message: 'require_approval: false was ignored: a proposal cannot remove an approval requirement; policy and commitments decide',
          });
        }
        continue;
      }
      if (known.includes(key)) continue;
      if (AUTHORITY_FIELDS.has(key)) {
        this.warnings.push({
          code: 'ignored_authority_claim',
          path: at,
          message: `"${key}" was ignored: a proposal cannot carry authority; approvals come only from policy, commitments and operators`,
        });
      } else if (PROGRESS_FIELDS.has(key)) {
        this.warnings.push({
          code: 'ignored_progress_claim',
          path: at,
          message: `"${key}" was ignored: a proposal cannot claim progress; only the executor records outcomes, from observation`,
        });
      } else if (PROVENANCE_FIELDS.has(key)) {
        this.warnings.push({
          code: 'ignored_provenance_claim',
          path: at,
          message: `"${key}" was ignored: identity and provenance of a plan are assigned by Praxis`,
        });
      } else {
        this.error('unknown_field', at, `unknown field "${key}" in ${what}`);
      }
    }
  }

  string(obj: Obj, key: string, path: string, fallback = ''): string {
    const value = obj[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'string') return value;
    this.error('invalid_type', join(path, key), `${key} must be a string`);
    return fallback;
  }

  number(obj: Obj, key: string, path: string, fallback: number): number {
    const value = obj[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    this.error('invalid_type', join(path, key), `${key} must be a number`);
    return fallback;
  }

  boolean(obj: Obj, key: string, path: string): boolean {
    const value = obj[key];
    if (value === undefined || value === null) return false;
    if (typeof value === 'boolean') return value;
    this.error('invalid_type', join(path, key), `${key} must be true or false`);
    return false;
  }

  stringList(obj: Obj, key: string, path: string): string[] {
    const value = obj[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.error('invalid_type', join(path, key), `${key} must be a list of strings`);
      return [];
    }
    return this.entries(value, join(path, key), (item, i) => {
      if (typeof item === 'string') return item;
      this.error('invalid_type', `${join(path, key)}[${i}]`, `${key} entries must be strings`);
      return null;
    });
  }

  object(obj: Obj, key: string, path: string): JsonObject {
    const value = obj[key];
    if (value === undefined || value === null) return {};
    if (isObject(value)) return value as JsonObject;
    this.error('invalid_type', join(path, key), `${key} must be an object`);
    return {};
  }

  list(obj: Obj, key: string, path: string): unknown[] {
    const value = obj[key];
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.error('invalid_type', join(path, key), `${key} must be a list`);
    return [];
  }

  /** Optional nested object whose own fields are checked; null when absent or malformed. */
  nested(obj: Obj, key: string, path: string, known: readonly string[], what: string): Obj | null {
    const value = obj[key];
    if (value === undefined || value === null) return null;
    if (!isObject(value)) {
      this.error('invalid_type', join(path, key), `${key} must be an object`);
      return null;
    }
    this.fields(value, known, join(path, key), what);
    return pick(value, known);
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function pick(obj: Obj, known: readonly string[]): Obj {
  const out: Obj = {};
  for (const key of known) if (obj[key] !== undefined && key !== 'require_approval') out[key] = obj[key];
  return out;
}

function readResources(r: Reader, obj: Obj, key: string, path: string): Partial<Resources> {
  const value = r.object(obj, key, path);
  const at = join(path, key);
  r.fields(value, RESOURCE_KEYS as readonly string[], at, key);
  const out: Partial<Resources> = {};
  for (const dimension of RESOURCE_KEYS) {
    // null is not stated, as validation reads it (resources.ts): not a cap of 0, which would
    // block the plan at its first approval.
    if (value[dimension] === undefined || value[dimension] === null) continue;
    out[dimension] = r.number(value, dimension, at, 0);
  }
  return out;
}

function readSpec(r: Reader, step: Obj, path: string): JsonObject {
  const spec = r.nested(step, 'spec', path, SPEC_FIELDS, 'a step spec');
  if (!spec) return {};
  const request = r.nested(spec, 'request', join(path, 'spec'), REQUEST_FIELDS, 'a capability request');
  return (request ? { ...spec, request } : spec) as JsonObject;
}

function readExpectation(r: Reader, step: Obj, path: string): StepDraft['expectation'] {
  const expectation = r.nested(step, 'expectation', path, EXPECTATION_FIELDS, 'an expectation');
  if (!expectation) return null;
  const check = r.nested(expectation, 'check', join(path, 'expectation'), CHECK_FIELDS, 'a check');
  return { ...expectation, check: check ?? {} } as unknown as StepDraft['expectation'];
}

function readStep(r: Reader, input: unknown, path: string): StepDraft {
  // A malformed step keeps an empty place so later steps keep their indices (and paths).
  if (!isObject(input)) r.error('invalid_type', path, 'a step must be an object');
  const step: Obj = isObject(input) ? input : {};
  r.fields(step, STEP_FIELDS, path, 'a step');
  return {
    key: r.string(step, 'key', path),
    title: r.string(step, 'title', path),
    kind: r.string(step, 'kind', path) as StepKind,
    depends_on: r.stringList(step, 'depends_on', path),
    capability: r.string(step, 'capability', path),
    target: r.string(step, 'target', path),
    params: r.object(step, 'params', path),
    expectation: readExpectation(r, step, path),
    precondition: r.nested(step, 'precondition', path, PRECONDITION_FIELDS, 'a precondition') as StepDraft['precondition'],
    max_attempts: r.number(step, 'max_attempts', path, 1),
    // Only `true` survives: a proposal may add an approval requirement, never remove one.
    require_approval: r.boolean(step, 'require_approval', path),
    spec: readSpec(r, step, path),
  };
}

function readAssumption(r: Reader, input: unknown, path: string): Assumption | null {
  if (typeof input === 'string') return { statement: input, min_confidence: 0 };
  if (!isObject(input)) {
    r.error('invalid_type', path, 'an assumption must be a statement or an object');
    return null;
  }
  r.fields(input, ASSUMPTION_FIELDS, path, 'an assumption');
  const assumption: Assumption = {
    statement: r.string(input, 'statement', path),
    min_confidence: r.number(input, 'min_confidence', path, 0),
  };
  const belief = r.string(input, 'belief_id', path);
  if (belief) assumption.belief_id = belief;
  return assumption;
}

/** Words stay words (display_only, flagged by validation); a condition keeps only its own fields, checked by validation. */
function readAbortCondition(r: Reader, input: unknown, path: string): AbortConditionDraft | null {
  if (typeof input === 'string') return input;
  if (!isObject(input)) {
    r.error('invalid_type', path, 'an abort condition must be words or an object with "when"');
    return null;
  }
  r.fields(input, ABORT_CONDITION_FIELDS, path, 'an abort condition');
  return pick(input, ABORT_CONDITION_FIELDS) as unknown as AbortConditionDraft;
}

function readAlternative(r: Reader, input: unknown, path: string): Alternative | null {
  if (!isObject(input)) {
    r.error('invalid_type', path, 'an alternative must be an object');
    return null;
  }
  r.fields(input, ALTERNATIVE_FIELDS, path, 'an alternative');
  return {
    strategy: r.string(input, 'strategy', path),
    estimate: readResources(r, input, 'estimate', path),
    expected_confidence: r.number(input, 'expected_confidence', path, 0),
    score: r.number(input, 'score', path, 0),
    selected: r.boolean(input, 'selected', path),
    why: r.string(input, 'why', path),
  };
}

/**
 * Parses an untrusted proposal. Refuses only input that is not a plan at all (not an object);
 * every other problem is reported while a draft is still formed, so an invalid proposal can
 * be stored as a draft with its errors.
 */
export function parseProposal(input: unknown): ParsedProposal | RefusedProposal {
  if (!isObject(input)) {
    const got = Array.isArray(input) ? 'a list' : input === null ? 'null' : typeof input;
    return { ok: false, errors: [{ code: 'malformed_input', path: '', message: `a plan must be an object, got ${got}` }] };
  }
  const r = new Reader();
  r.fields(input, PLAN_FIELDS, '', 'a plan');
  const steps = r.list(input, 'steps', '').map((step, i) => readStep(r, step, `steps[${i}]`));
  const draft: PlanDraft = {
    objective: r.string(input, 'objective', ''),
    strategy: r.string(input, 'strategy', ''),
    assumptions: r.entries(r.list(input, 'assumptions', ''), 'assumptions', (a, i) => readAssumption(r, a, `assumptions[${i}]`) ?? null),
    completion_criteria: r.string(input, 'completion_criteria', ''),
    abort_conditions: r.entries(r.list(input, 'abort_conditions', ''), 'abort_conditions', (a, i) => readAbortCondition(r, a, `abort_conditions[${i}]`) ?? null),
    risk: r.string(input, 'risk', ''),
    estimate: readResources(r, input, 'estimate', ''),
    budget: readResources(r, input, 'budget', '') as Budget,
    alternatives: r.entries(r.list(input, 'alternatives', ''), 'alternatives', (a, i) => readAlternative(r, a, `alternatives[${i}]`) ?? null),
    require_approval: r.boolean(input, 'require_approval', ''),
    steps,
  };
  return { ok: true, draft, errors: r.errors, warnings: r.warnings, inputPath: (path) => inputPath(r.kept, path) };
}

/** `path` (of the draft) as a path of the input, where entries of a list before it were dropped (pure). */
function inputPath(kept: ReadonlyMap<string, readonly number[]>, path: string): string {
  for (const [list, from] of kept) {
    if (!path.startsWith(`${list}[`)) continue;
    const end = path.indexOf(']', list.length);
    const index = Number(path.slice(list.length + 1, end));
    if (Number.isInteger(index) && from[index] !== undefined) return `${list}[${from[index]}]${path.slice(end + 1)}`;
  }
  return path;
}

// `model`: when no deterministic strategy applies and a model serves the plan role, the model is
// asked for a plan. This module is the pure part: the messages it is sent (the intention, the
// mind's capability catalogue with what policy would decide today, earlier failed revisions)
// and the reading of its answer, which then goes through the same parsing and validation as
// any proposal. What the model says about approval, progress or provenance is ignored; the
// budget is Praxis's, never the model's.

import type { CapabilityRegistry } from '../../capabilities/registry.ts';
import { DEFAULT_MAX_INVOCATIONS, type Budget, type JsonObject, type JsonValue } from '../../core/plan.ts';
import { COMPARISONS, INTERNAL_ACTIONS, STEP_KINDS } from '../../core/vocabulary.ts';
import type { PlanRequest } from '../planner-types.ts';
import { investigationSubject } from './subject.ts';

/** How sure Praxis is, before any evidence, that a model's plan reaches its objective. */
export const MODEL_CONFIDENCE = 0.5;
/** Longest answer text read; a plan of thirty steps is a few kilobytes. */
export const MAX_ANSWER_CHARS = 256 * 1024;

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const INSTRUCTIONS = [
  "You propose plans for Praxis, which carries them out only through the registered capabilities listed below, under the operator's policy.",
  'Answer with exactly one JSON object and no other text: the plan. Its fields: objective, assumptions (list of {statement, min_confidence}), completion_criteria, abort_conditions (list of {when, step or steps, statement} with when one of step_failed, every_observation_failed, expectation_refuted; a plain string is only shown, never checked), risk, budget ({invocations}), steps.',
  'Each step: key (short, unique, e.g. "P1"), title, kind, depends_on (keys), and per kind: capability and params for "capability" steps (optionally expectation and precondition); spec.request for "request_capability"; spec.verifies (the key of the step whose expectation it checks) for "verify"; capability, params and spec.field/comparison/value/stable_seconds/deadline_seconds for "monitor"; spec.seconds for "wait"; spec.action for "internal".',
  `Step kinds: ${STEP_KINDS.join(', ')}. Internal actions: ${INTERNAL_ACTIONS.join(', ')} (notify_operator needs spec.message).`,
  `A check (expectation.check, precondition, verify, monitor) reads through a read-only capability and compares one field it observes using ${COMPARISONS.join(', ')}.`,
  'Give every writing step an expectation {statement, confidence (0..1), within_seconds, check} and a later verify step that depends on it. A writing step that is not idempotent has max_attempts 1.',
  'Use only the capabilities listed, with parameters their schema accepts. Where policy says "deny" the capability cannot be used; where it says "ask" an operator will be asked.',
  'You cannot approve, authorise or mark anything done: such fields are ignored. Do not repeat an action that failed in an earlier revision.',
  `At most 30 steps and ${DEFAULT_MAX_INVOCATIONS} capability invocations.`,
  'If no plan can reach the objective with these capabilities, answer {"refuse": "<why>"} instead.',
].join('\n');

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The unit the intention is about, if any: from its means, else from its objective. */
function subjectUnit(request: PlanRequest): string | null {
  const unit = request.intention.means?.params.unit;
  if (typeof unit === 'string') return unit;
  return investigationSubject(request.intention.objective)?.unit ?? null;
}

/** The messages asking the model for a plan (pure). */
export function buildModelMessages(request: PlanRequest, registry: CapabilityRegistry): ChatMessage[] {
  const { intention, policy } = request;
  const unit = subjectUnit(request);
  const capabilities = registry.list().map((definition) => {
    // Policy is shown for the intention's own target where the capability can act on it,
    // otherwise for the capability's fixed target, otherwise for any target.
    const properties = isObject(definition.paramsSchema.properties) ? definition.paramsSchema.properties : {};
    const params: JsonObject = unit && 'unit' in properties ? { unit } : {};
    const target = intention.means?.capability === definition.name ? registry.targetOf(definition.name, intention.means.params) || '*' : registry.targetOf(definition.name, params) || '*';
    const answer = policy.decide(definition.name, target, params);
    return {
      name: definition.name,
      description: definition.description,
      read_only: definition.readOnly,
      idempotent: definition.idempotent,
      locked: definition.locked,
      params_schema: definition.paramsSchema,
      observes: [...definition.observes],
      policy: { target, decision: definition.locked ? 'deny' : answer.decision },
    };
  });
  const earlier = request.history.map((r) => ({
    revision: r.revision,
    strategy: r.strategy,
    status: r.status,
    status_reason: r.statusReason,
    troubled_steps: r.steps
      .filter((s) => ['failed', 'blocked', 'cancelled'].includes(s.status))
      .map((s) => ({ key: s.key, title: s.title, capability: s.capability, target: s.target, status: s.status, error: s.error || s.statusReason })),
    // What its summaries found (a diagnosis's findings), so the next proposal starts from them.
    findings: r.steps.flatMap((s) => {
      const summary = s.kind === 'internal' && s.status === 'completed' ? (s.observation as { summary?: unknown } | null)?.summary : undefined;
      return typeof summary === 'string' ? [`${s.key}: ${summary}`] : [];
    }),
  }));
  const payload = {
    intention: { objective: intention.objective, means: intention.means, require_approval: intention.requireApproval },
    capabilities,
    earlier_revisions: earlier,
    failed_strategies: [...request.failedStrategies],
  };
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: JSON.stringify(payload, null, 2) },
  ];
}

export type ModelAnswer = { kind: 'proposal'; value: { [key: string]: unknown } } | { kind: 'refused'; message: string } | { kind: 'malformed'; message: string };

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/**
 * Reads the model's reply text (pure). A JSON object (bare, in a ```json fence, or embedded
 * in a sentence) is a proposal, unless it only says `{"refuse": ...}`; prose with no JSON in it
 * is a refusal; anything else (broken JSON, JSON that is not an object) is malformed.
 */
export function interpretModelAnswer(content: string): ModelAnswer {
  const trimmed = content.trim();
  if (trimmed === '') return { kind: 'malformed', message: 'the model returned no text' };
  if (trimmed.length > MAX_ANSWER_CHARS) return { kind: 'malformed', message: `the answer is longer than ${MAX_ANSWER_CHARS} characters` };
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(trimmed);
  const text = fenced ? fenced[1]! : trimmed;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (first) {
    if (!text.includes('{')) return { kind: 'refused', message: `the model answered in prose instead of a plan: "${excerpt(text)}"` };
    // A JSON object after (or before) a sentence of prose is still read.
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    try {
      if (end <= start) throw first;
      value = JSON.parse(text.slice(start, end + 1));
    } catch (error) {
      return { kind: 'malformed', message: `the answer is not valid JSON: ${(error as Error).message}` };
    }
  }
  if (!isObject(value)) return { kind: 'malformed', message: 'the answer is JSON but not an object' };
  if ('refuse' in value && !('steps' in value)) {
    const why = typeof value.refuse === 'string' && value.refuse.trim() ? value.refuse.trim() : 'no reason given';
    return { kind: 'refused', message: `the model declined to plan: ${excerpt(why)}` };
  }
  return { kind: 'proposal', value };
}

/**
 * The proposal with what Praxis decides put in place: the intention's objective, strategy
 * `model`, no alternatives of its own, an approval requirement where the intention has one, and
 * a budget no looser than Praxis's (a stricter cap the model asks for is kept).
 */
export function withPraxisFields(value: { [key: string]: unknown }, request: PlanRequest): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = { ...value, objective: request.intention.objective, strategy: 'model', alternatives: [] };
  if (request.intention.requireApproval) out.require_approval = true;
  out.budget = cappedBudget(value.budget, request.budget);
  return out;
}

function cappedBudget(claimed: unknown, own: Budget | undefined): unknown {
  const base: Budget = { invocations: DEFAULT_MAX_INVOCATIONS, ...own };
  if (claimed === undefined || claimed === null) return base;
  // Not an object: leave it for the parser to report.
  if (!isObject(claimed)) return claimed;
  const out: { [key: string]: unknown } = { ...claimed };
  for (const [key, cap] of Object.entries(base) as [string, number][]) {
    const stated = claimed[key];
    if (stated === undefined || stated === null) out[key] = cap;
    else if (typeof stated === 'number' && Number.isFinite(stated)) out[key] = Math.min(stated, cap);
  }
  return out as JsonValue;
}

// Findings: what a summary (the internal step summarise_findings) takes from the observations
// it depends on, and how they re-enter the mind. Reading is pure: each read capability's answer
// is searched for the facts an operator or a later plan needs (a unit's state, journal lines at
// error or fatal level, a disk or memory threshold crossed, a web page's HTTP status), and a
// read that failed or never ran is a finding too. Everything is bounded: a journal of 200 lines
// yields at most a handful of lines, each cut short.
//
// Re-entering the mind (`recordFindings`) is one `findings_observed` event (the observation)
// plus a belief per problem found: an existing belief with the same statement gets evidence for
// it, a new one is formed at the neutral 0.5 and then gets that evidence, so its confidence and
// its evidence trail follow the one rule of beliefs.ts. A unit seen in a state weakens the
// mind's beliefs that it was in another (evidence against). See docs/mind.md, "Findings".

import type { JsonObject } from '../core/plan.ts';
import type { BeliefRecord, Repositories } from '../store/index.ts';
import { addEvidence } from './beliefs.ts';
import type { StepDigest } from '../core/step-digest.ts';

/** A used share at or above this is a problem. */
export const DISK_FULL_PERCENT = 90;
export const MEMORY_FULL_PERCENT = 90;
/** How sure a direct read-only observation makes the mind: the weight of its evidence. */
export const OBSERVATION_WEIGHT = 0.9;
/** A new belief starts undecided, then takes the observation's evidence. */
export const NEW_BELIEF_CONFIDENCE = 0.5;
export const MAX_LOG_FINDINGS = 8;
export const MAX_FINDING_TEXT = 300;
export const MAX_SUMMARY = 2_000;
/** Beliefs one summary may form or move: the most severe problems first. */
export const MAX_BELIEFS_PER_SUMMARY = 6;

export type FindingKind = 'unit_state' | 'log_line' | 'disk_usage' | 'memory_usage' | 'http_status' | 'observed' | 'read_failed' | 'not_read';

export interface Finding {
  /** The step that observed it. */
  step: string;
  kind: FindingKind;
  /** `fatal` and `error` are problems in the world; `failed` is an observation that could not be made. */
  level: 'fatal' | 'error' | 'warning' | 'info' | 'failed';
  /** In words, bounded. */
  text: string;
  /** What the mind comes to believe from it, when it is a problem in the world. */
  belief?: string;
  /** For a unit's state: the unit and the state seen (to weaken beliefs in other states). */
  unit?: string;
  state?: string;
}

/** A dependency of the summary as findings need it. */
/** A step as findings read it: the shared digest (src/core/step-digest.ts). */
export type ObservedStep = StepDigest;

function clip(text: string, max = MAX_FINDING_TEXT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function obj(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const FATAL = /\b(fatal|panic|emerg(ency)?|alert|crit(ical)?|segfault|out of memory|oom[- ]kill(ed|er)?)\b/i;
const ERROR = /\b(err(or)?|exception|traceback|fail(ed|ure)?|refused)\b/i;

/** The message of a short-iso journal line: what follows `unit[pid]: ` (the whole line when the prefix is not there). */
export function journalMessage(line: string): string {
  const m = /^\S+ \S+ [^:\s]+(?:\[\d+\])?: (.*)$/s.exec(line);
  return (m ? m[1]! : line).trim();
}

/** The level of a journal message from its words (short-iso output carries no priority). */
export function logLevel(message: string): 'fatal' | 'error' | null {
  if (FATAL.test(message)) return 'fatal';
  if (ERROR.test(message)) return 'error';
  return null;
}

function logFindings(step: ObservedStep, o: Record<string, unknown>): Finding[] {
  const unit = typeof o.unit === 'string' ? o.unit : step.target;
  const lines = Array.isArray(o.lines) ? o.lines.filter((l): l is string => typeof l === 'string') : [];
  const notable = lines.flatMap((line) => {
    const message = journalMessage(line);
    const level = logLevel(message);
    return level ? [{ message, level }] : [];
  });
  // Fatal lines first, then errors, newest first within each (the lines come oldest first); a
  // message repeated is one finding that says how often.
  const ordered = [...notable.filter((n) => n.level === 'fatal').reverse(), ...notable.filter((n) => n.level === 'error').reverse()];
  const times = new Map<string, { level: 'fatal' | 'error'; count: number }>();
  for (const { message, level } of ordered) {
    const seen = times.get(message);
    if (seen) seen.count += 1;
    else times.set(message, { level, count: 1 });
  }
  const distinct = [...times.entries()];
  const findings: Finding[] = distinct.slice(0, MAX_LOG_FINDINGS).map(([message, { level, count }]) => ({
    step: step.key,
    kind: 'log_line',
    level,
    text: clip(`${unit} logged${count > 1 ? ` ${count} times` : ''}: ${message}`),
    belief: `${unit} logged "${clip(message, 200)}"`,
    unit,
  }));
  if (distinct.length > MAX_LOG_FINDINGS) {
    findings.push({ step: step.key, kind: 'log_line', level: 'info', text: `${distinct.length - MAX_LOG_FINDINGS} more error or fatal messages of ${unit} not listed`, unit });
  }
  if (findings.length === 0) findings.push({ step: step.key, kind: 'log_line', level: 'info', text: `${lines.length} journal lines of ${unit}, none at error or fatal level`, unit });
  return findings;
}

function percent(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 10) / 10 : null;
}

/** What one completed observation says (pure). */
function observedFindings(step: ObservedStep): Finding[] {
  const o = obj(step.observation);
  if (!o) return [{ step: step.key, kind: 'observed', level: 'info', text: `${step.key} (${step.title}) completed with nothing to read` }];
  switch (step.capability) {
    case 'service.status': {
      const unit = typeof o.unit === 'string' ? o.unit : step.target;
      const state = typeof o.active_state === 'string' ? o.active_state : 'unknown';
      const sub = typeof o.sub_state === 'string' && o.sub_state !== state ? ` (${o.sub_state})` : '';
      const problem = state === 'failed' || o.load_state === 'not-found';
      const text = o.load_state === 'not-found' ? `${unit} is not a loaded unit` : `${unit} is ${state}${sub}`;
      return [{ step: step.key, kind: 'unit_state', level: problem ? 'error' : 'info', text, ...(problem ? { belief: `${unit} is ${state}` } : {}), unit, state }];
    }
    case 'logs.query':
      return logFindings(step, o);
    case 'host.disk.usage': {
      const filesystems = Array.isArray(o.filesystems) ? o.filesystems.map(obj).filter((f): f is Record<string, unknown> => f !== null) : [];
      const seen = filesystems.length > 0 ? filesystems : [{ mount: o.path, used_percent: o.used_percent }];
      const full = seen.filter((f) => (percent(f.used_percent) ?? 0) >= DISK_FULL_PERCENT);
      if (full.length === 0) {
        const most = Math.max(...seen.map((f) => percent(f.used_percent) ?? 0));
        return [{ step: step.key, kind: 'disk_usage', level: 'info', text: `disk usage below ${DISK_FULL_PERCENT}% (at most ${most}% used)` }];
      }
      return full.map((f) => ({
        step: step.key,
        kind: 'disk_usage',
        level: 'error',
        text: `filesystem ${String(f.mount)} is ${percent(f.used_percent)}% full (threshold ${DISK_FULL_PERCENT}%)`,
        belief: `filesystem ${String(f.mount)} is at least ${DISK_FULL_PERCENT}% full`,
      }));
    }
    case 'host.memory.status': {
      const used = percent(o.used_percent);
      if (used === null) return [{ step: step.key, kind: 'memory_usage', level: 'info', text: 'host memory read, without a used share' }];
      if (used < MEMORY_FULL_PERCENT) return [{ step: step.key, kind: 'memory_usage', level: 'info', text: `host memory ${used}% used` }];
      return [
        { step: step.key, kind: 'memory_usage', level: 'error', text: `host memory ${used}% used (threshold ${MEMORY_FULL_PERCENT}%)`, belief: `host memory is at least ${MEMORY_FULL_PERCENT}% used` },
      ];
    }
    default: {
      const status = typeof o.status === 'number' ? o.status : null;
      if (status !== null) {
        const where = typeof o.final_url === 'string' ? o.final_url : typeof o.url === 'string' ? o.url : step.target;
        const problem = status >= 400;
        return [
          { step: step.key, kind: 'http_status', level: problem ? 'error' : 'info', text: `${where} answered HTTP ${status}`, ...(problem ? { belief: `${where} answers HTTP ${status}` } : {}) },
        ];
      }
      const title = typeof o.title === 'string' && o.title ? `: "${clip(o.title, 120)}"` : '';
      return [{ step: step.key, kind: 'observed', level: 'info', text: clip(`${step.key} (${step.capability || step.kind}) observed${title || ` ${JSON.stringify(o)}`}`) }];
    }
  }
}

/** The HTTP status a failed web read names in its error ("... answered with status 503"). */
function failedHttpStatus(error: string): number | null {
  const m = /answered with status (\d{3})/.exec(error);
  return m ? Number(m[1]) : null;
}

/** What one dependency of a summary contributes (pure). */
export function findingsOf(step: ObservedStep): Finding[] {
  switch (step.status) {
    case 'completed':
      return step.kind === 'internal' || step.kind === 'request_capability' || step.kind === 'wait' ? [] : observedFindings(step);
    case 'failed': {
      const why = step.error || step.statusReason || 'no reason given';
      const status = failedHttpStatus(why);
      if (status !== null) {
        return [{ step: step.key, kind: 'http_status', level: 'error', text: clip(`${step.target} answered HTTP ${status}`), belief: `${step.target} answers HTTP ${status}` }];
      }
      return [{ step: step.key, kind: 'read_failed', level: 'failed', text: clip(`${step.key} (${step.title}) failed: ${why}`) }];
    }
    case 'cancelled':
    case 'skipped':
      if (step.kind !== 'capability' && step.kind !== 'monitor') return [];
      // Cancelled, the read could not be made; skipped, it was left out on purpose (a precondition).
      return [
        { step: step.key, kind: 'not_read', level: step.status === 'cancelled' ? 'failed' : 'info', text: clip(`${step.key} (${step.title}) was not read: ${step.statusReason || step.status}`) },
      ];
    default:
      return [];
  }
}

const RANK: Record<Finding['level'], number> = { fatal: 0, error: 1, failed: 2, warning: 3, info: 4 };

/** The summary's observation: its findings, most severe first, and one bounded line of words (pure). */
export function summaryOf(steps: readonly ObservedStep[]): { summary: string; findings: Finding[] } {
  const findings = steps.flatMap(findingsOf).sort((a, b) => RANK[a.level] - RANK[b.level]);
  const problems = findings.filter((f) => f.level === 'fatal' || f.level === 'error');
  const failed = findings.filter((f) => f.level === 'failed');
  const rest = findings.filter((f) => f.level === 'info' || f.level === 'warning');
  const parts: string[] = [];
  if (problems.length > 0) parts.push(`Found: ${problems.map((f) => f.text).join('; ')}.`);
  if (rest.length > 0) parts.push(`Also seen: ${rest.map((f) => f.text).join('; ')}.`);
  if (failed.length > 0) parts.push(`Not observed: ${failed.map((f) => f.text).join('; ')}.`);
  const summary = parts.length > 0 ? parts.join(' ') : 'no findings';
  return { summary: clip(summary, MAX_SUMMARY), findings };
}

/** Where a summary was made, for its event and its beliefs' evidence. */
export interface FindingsSubject {
  mindId: string;
  intentionId: string;
  planId: string;
  stepId: string;
  stepKey: string;
}

/** A finding as the event and the API carry it. */
export function findingJson(f: Finding): JsonObject {
  return { step: f.step, kind: f.kind, level: f.level, text: f.text, ...(f.belief ? { belief: f.belief } : {}) };
}

/**
 * Records a summary's findings in the mind, inside the caller's unit of work: `findings_observed`
 * with the summary, then the beliefs (see the header). Returns the beliefs formed or moved.
 */
export async function recordFindings(repos: Repositories, subject: FindingsSubject, observed: { summary: string; findings: readonly Finding[] }, at: Date): Promise<BeliefRecord[]> {
  const source = `plan_step:${subject.stepId}`;
  const statements = [...new Set(observed.findings.flatMap((f) => (f.belief ? [f.belief] : [])))].slice(0, MAX_BELIEFS_PER_SUMMARY);
  const states = observed.findings.filter((f) => f.kind === 'unit_state' && f.unit && f.state);
  // Two executors recording the same finding at once would each find no belief and each form one:
  // the mind's row lock makes the second read after the first commits.
  if (statements.length > 0) await repos.minds.lockForUpdate(subject.mindId);
  const held = await repos.beliefs.matching(subject.mindId, { exact: statements, prefixes: [...new Set(states.map((f) => `${f.unit} is `))] });
  const moved: BeliefRecord[] = [];
  for (const statement of statements) {
    const finding = observed.findings.find((f) => f.belief === statement)!;
    const belief = held.find((b) => b.statement === statement) ?? (await repos.beliefs.create({ mindId: subject.mindId, statement, confidence: NEW_BELIEF_CONFIDENCE }));
    const revised = await addEvidence(repos, belief.id, { direction: 'for', weight: OBSERVATION_WEIGHT, source, note: `${subject.stepKey} observed: ${finding.text}` }, at);
    if (revised) moved.push(revised);
  }
  // A unit seen in one state is evidence against the mind's beliefs that it is in another.
  for (const finding of states) {
    const prefix = `${finding.unit} is `;
    for (const belief of held) {
      if (!belief.statement.startsWith(prefix) || belief.statement === `${prefix}${finding.state}`) continue;
      if (/\s/.test(belief.statement.slice(prefix.length))) continue;
      const revised = await addEvidence(repos, belief.id, { direction: 'against', weight: OBSERVATION_WEIGHT, source, note: `${subject.stepKey} observed: ${finding.text}` }, at);
      if (revised) moved.push(revised);
    }
  }
  await repos.events.append({
    type: 'findings_observed',
    mindId: subject.mindId,
    intentionId: subject.intentionId,
    planId: subject.planId,
    stepId: subject.stepId,
    data: {
      key: subject.stepKey,
      summary: observed.summary,
      findings: observed.findings.map(findingJson),
      beliefs: moved.map((b) => ({ belief_id: b.id, statement: b.statement, confidence: b.confidence })),
    },
  });
  return moved;
}

// Abort conditions: when a plan stops trying. A plan shows them to approvers ("the plan stops
// when: ...") and the executor evaluates them, so they come from a small closed vocabulary of
// facts it can read from the plan's own steps without asking anything else:
//
//   step_failed               the named step failed
//   every_observation_failed  every named observation failed (or was cancelled), none succeeded
//   expectation_refuted       the named verify step saw its expectation refuted (not merely unobservable)
//   display_only              words for people; never evaluated, and flagged as such everywhere
//
// A plain string in a plan file is accepted as `display_only` (with a validation warning), so
// the words an author wrote are kept, but nothing pretends to check them. See docs/plan-format.md.

export const ABORT_WHENS = ['step_failed', 'every_observation_failed', 'expectation_refuted', 'display_only'] as const;
export type AbortWhen = (typeof ABORT_WHENS)[number];
/** The kinds the executor evaluates (all but display_only). */
export const EVALUATED_ABORT_WHENS: readonly AbortWhen[] = ['step_failed', 'every_observation_failed', 'expectation_refuted'];

/** A stored abort condition: always with the words shown to people. */
export interface AbortCondition {
  when: AbortWhen;
  /** step_failed and expectation_refuted: the step's key. */
  step?: string;
  /** every_observation_failed: the observations' keys. */
  steps?: string[];
  /** In words, for approvers and the plan page. */
  statement: string;
}

/** An abort condition as an author writes it: words only (display_only), or a condition whose statement may be left to Praxis. */
export type AbortConditionDraft = string | (Omit<AbortCondition, 'statement'> & { statement?: string });

/** The words for a condition that states none (pure). */
export function describeAbortCondition(condition: Omit<AbortCondition, 'statement'> & { statement?: string }): string {
  if (typeof condition.statement === 'string' && condition.statement.trim() !== '') return condition.statement.trim();
  switch (condition.when) {
    case 'step_failed':
      return `${condition.step ?? '?'} fails`;
    case 'every_observation_failed':
      return `every observation fails (${(condition.steps ?? []).join(', ')})`;
    case 'expectation_refuted':
      return `${condition.step ?? '?'} refutes its expectation`;
    case 'display_only':
      return '';
  }
}

/**
 * One entry as stored: a string becomes display_only, a condition gets its words. Entries of
 * no known shape (only in rows written by hand) are kept as display_only words, never evaluated.
 */
export function normaliseAbortCondition(entry: unknown): AbortCondition {
  if (typeof entry === 'string') return { when: 'display_only', statement: entry };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { when: 'display_only', statement: String(entry) };
  const raw = entry as Record<string, unknown>;
  const when = (ABORT_WHENS as readonly unknown[]).includes(raw.when) ? (raw.when as AbortWhen) : 'display_only';
  const condition: Omit<AbortCondition, 'statement'> & { statement?: string } = { when };
  if (typeof raw.step === 'string') condition.step = raw.step;
  if (Array.isArray(raw.steps)) condition.steps = raw.steps.filter((s): s is string => typeof s === 'string');
  if (typeof raw.statement === 'string') condition.statement = raw.statement;
  const statement = describeAbortCondition(condition) || (typeof raw.when === 'string' ? raw.when : '');
  return { ...condition, statement };
}

export function normaliseAbortConditions(entries: unknown): AbortCondition[] {
  return Array.isArray(entries) ? entries.map(normaliseAbortCondition) : [];
}

/** "the words" for evaluated conditions, "the words (shown only, not checked)" for display_only. */
export function abortConditionText(condition: AbortCondition): string {
  return condition.when === 'display_only' ? `${condition.statement} (shown only, not checked)` : condition.statement;
}

// Operator names. Every operator decision (approve, deny, grant, revoke, release) records who made
// it; a decision without a name is refused before anything is read or written. Names are compared
// after normalisation (Unicode NFKC, invisible characters dropped, surrounding space trimmed,
// lower case), so `--as OPER`, `oper `, `ｏｐｅｒ` and `op\u200Ber` are one operator to the
// four-eyes rules, whatever each surface was typed as.

/** Control characters other than tab, line feed and carriage return have no place in a name. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * Characters that show nothing (zero-width spaces and joiners, bidirectional controls, the
 * byte-order mark...): dropped before names are compared, so `alice` with a zero-width space in
 * it is alice, and a name of nothing else is empty.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

export function isOperatorName(value: unknown): value is string {
  return typeof value === 'string' && normaliseOperator(value).length > 0 && !CONTROL.test(value);
}

/** The form in which two operator names are compared. */
export function normaliseOperator(name: string): string {
  return name.normalize('NFKC').replace(INVISIBLE, '').trim().toLowerCase();
}

/** True when both name the same operator; an empty name (no recorded author) is nobody's. */
export function sameOperator(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const left = normaliseOperator(a);
  return left !== '' && left === normaliseOperator(b);
}

/** What the four-eyes rules read of an approval request. */
export interface FourEyesSubject {
  id: string;
  status: string;
  /** Who raised the action (a plan's or a call's author); empty when nobody was recorded. */
  authoredBy: string;
  /** Who named the author later (an action raised without one); empty when it came with its author. */
  authorNamedBy?: string;
  /** Operators who amended the action before approving it: each is one of its authors. */
  amendments?: readonly { operator: string }[];
  decisions: readonly { operator: string }[];
}

/**
 * The four-eyes rules for approving a pending request, names compared normalised:
 * - an action that records no author cannot be approved: nobody could tell a second pair of
 *   eyes from the first (deny it, and raise it again with its author named);
 * - its author cannot approve it, nor can whoever named its author after it was raised (naming
 *   yourself the author, or anyone else, leaves the approving to another operator), nor anyone
 *   who amended the action (an amendment is authorship of what will run);
 * - an operator approves once; a further approval must be someone else's.
 * Every surface applies them before the capability service decides (the API and MCP in
 * `decideApproval` of src/operations/decisions.ts, the CLI's `approve`). Null when the operator
 * may approve; a request that is no longer pending is left to the service to refuse.
 */
export function fourEyesRefusal(approval: FourEyesSubject, operator: string): { code: 'already_decided' | 'no_author' | 'self_approval'; message: string } | null {
  if (approval.status !== 'pending') return null;
  if (normaliseOperator(approval.authoredBy ?? '') === '') {
    return {
      code: 'no_author',
      message: `approval request ${approval.id} records no author, so a second pair of eyes cannot be told from the first; name its author (praxis author, POST /approvals/{id}/author), then another operator approves`,
    };
  }
  if (sameOperator(approval.authoredBy, operator)) return { code: 'self_approval', message: `${operator} authored this action and cannot approve it` };
  if (sameOperator(approval.authorNamedBy, operator)) {
    return { code: 'self_approval', message: `${operator} named the author of this action and cannot approve it; another operator must` };
  }
  if ((approval.amendments ?? []).some((a) => sameOperator(a.operator, operator))) {
    return { code: 'self_approval', message: `${operator} amended this action and cannot approve it; another operator must` };
  }
  if (approval.decisions.some((d) => sameOperator(d.operator, operator))) {
    return { code: 'already_decided', message: `${operator} has already approved this request; another operator must decide` };
  }
  return null;
}

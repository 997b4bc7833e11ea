// The policy decision: pure, from the capability, the derived target, the mind's rules,
// commitments and live grants. Nothing here reads the store or the clock on its own.

import type { JsonObject } from '../../core/plan.ts';
import type { PolicyDecision } from '../../core/vocabulary.ts';
import type { CapabilityDefinition } from '../definition.ts';
import { outsideLimits, type ParamLimits } from './param-limits.ts';
import { matchesTarget, patternSpecificity } from './target-pattern.ts';

export interface PolicyRule {
  id?: string;
  /** A capability name or a glob over names (`host.*`, `*`). */
  capability: string;
  target_pattern: string;
  decision: PolicyDecision;
  /** Distinct operators an approval needs: 2 means four eyes. */
  approvers: number;
}

export interface CommitmentRequirement {
  id: string;
  capability: string;
  target_pattern: string;
  reason: string;
}

export interface ScopedGrant {
  id: string;
  capability: string;
  target_pattern: string;
  param_limits: ParamLimits;
  expires_at: Date;
  operations_left: number;
}

export type VerdictSource = 'locked' | 'rule' | 'default' | 'grant' | 'commitment' | 'request' | 'approval';

export interface PolicyVerdict {
  decision: PolicyDecision;
  /** What produced the decision. */
  source: VerdictSource;
  rule?: PolicyRule;
  grant?: ScopedGrant;
  commitment?: CommitmentRequirement;
  /** Distinct operators an approval needs when the decision is `ask`. */
  approvers: number;
  reason: string;
}

export interface PolicyQuestion {
  definition: CapabilityDefinition;
  target: string;
  params: JsonObject;
  rules: readonly PolicyRule[];
  commitments: readonly CommitmentRequirement[];
  /** Grants of the mind that are active; expiry and exhaustion are checked here against `now`. */
  grants: readonly ScopedGrant[];
  /** The caller (a plan step, an operator) asks for approval whatever policy says. */
  requireApproval: boolean;
  now: Date;
}

/**
 * Built-in defaults, outranked by any rule of the mind. Bounded host reads are allowed; logs
 * and web reads ask, since they may carry personal data or reach outside; writes ask.
 */
export const DEFAULT_RULES: readonly PolicyRule[] = Object.freeze([
  { capability: 'service.status', target_pattern: '*', decision: 'allow', approvers: 1 },
  { capability: 'host.*', target_pattern: '*', decision: 'allow', approvers: 1 },
  { capability: 'logs.query', target_pattern: '*', decision: 'ask', approvers: 1 },
  { capability: 'browser.*', target_pattern: '*', decision: 'ask', approvers: 1 },
  { capability: 'service.restart', target_pattern: '*', decision: 'ask', approvers: 1 },
  { capability: '*', target_pattern: '*', decision: 'ask', approvers: 1 },
]);

/** How restrictive a decision is: among equally specific rules the most restrictive wins. */
const RESTRICTION: Record<PolicyDecision, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Order between two rules that both match: positive when `a` wins. The more specific capability
 * pattern first, then the more specific target pattern; between equally specific rules (`a*` and
 * `a?` both match `ab`) the more restrictive decision, then more approvers, then the patterns'
 * code units, so the answer never depends on the order the store returned the rules in (which
 * follows its collation: SQLite and an ICU PostgreSQL database sort `a*` and `a?` differently).
 */
function compareRules(a: PolicyRule, b: PolicyRule): number {
  return (
    patternSpecificity(a.capability) - patternSpecificity(b.capability) ||
    patternSpecificity(a.target_pattern) - patternSpecificity(b.target_pattern) ||
    RESTRICTION[a.decision] - RESTRICTION[b.decision] ||
    a.approvers - b.approvers ||
    codeUnitOrder(b.capability, a.capability) ||
    codeUnitOrder(b.target_pattern, a.target_pattern)
  );
}

function codeUnitOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The most specific rule for this capability and target: capability first, then target (compareRules). */
export function mostSpecificRule(rules: readonly PolicyRule[], capability: string, target: string): PolicyRule | undefined {
  let best: PolicyRule | undefined;
  for (const rule of rules) {
    if (!matchesTarget(rule.capability, capability) || !matchesTarget(rule.target_pattern, target)) continue;
    if (best === undefined || compareRules(rule, best) > 0) best = rule;
  }
  return best;
}

/** A grant covers a call when it is unexpired, not spent, and the call is inside its scope. */
export function grantCovers(grant: ScopedGrant, capability: string, target: string, params: JsonObject, now: Date): boolean {
  return (
    grant.capability === capability &&
    grant.expires_at.getTime() > now.getTime() &&
    grant.operations_left > 0 &&
    matchesTarget(grant.target_pattern, target) &&
    outsideLimits(grant.param_limits, params) === null
  );
}

export function decidePolicy(q: PolicyQuestion): PolicyVerdict {
  const name = q.definition.name;
  if (q.definition.locked) {
    return { decision: 'deny', source: 'locked', approvers: 1, reason: `${name} is locked` };
  }
  const own = mostSpecificRule(q.rules, name, q.target);
  const rule = own ?? mostSpecificRule(DEFAULT_RULES, name, q.target);
  // DEFAULT_RULES ends with a catch-all, so a rule always exists.
  const base: PolicyVerdict = {
    decision: rule!.decision,
    source: own ? 'rule' : 'default',
    rule: rule!,
    approvers: Math.max(1, rule!.approvers),
    reason: `${own ? 'rule' : 'default rule'} ${rule!.capability} ${rule!.target_pattern} → ${rule!.decision}`,
  };
  if (base.decision === 'deny') return base;

  // Commitments and an explicit request only ever add a requirement; a grant never lifts them.
  const commitment = q.commitments.find((c) => matchesTarget(c.capability, name) && matchesTarget(c.target_pattern, q.target));
  if (commitment) {
    return { ...base, decision: 'ask', source: 'commitment', commitment, reason: `commitment: ${commitment.reason || `approval required for ${commitment.capability} ${commitment.target_pattern}`}` };
  }
  if (q.requireApproval) {
    return { ...base, decision: 'ask', source: 'request', reason: 'the caller requires approval for this action' };
  }
  if (base.decision === 'ask') {
    const grant = q.grants.find((g) => grantCovers(g, name, q.target, q.params, q.now));
    if (grant) return { ...base, decision: 'allow', source: 'grant', grant, reason: `inside grant ${grant.id} (${grant.operations_left} operations left)` };
  }
  return base;
}

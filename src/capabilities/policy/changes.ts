// Changing a mind's policy, with the change on the record. Setting or removing a rule and the
// event that says who did it, what it was before and what it is now commit together, so the
// timeline of a mind answers "who allowed this, and when" for every rule it ever had. The API
// and the CLI both come through here; checking the rule's form is theirs (src/operations/catalogue.ts).

import { isOperatorName } from '../../core/operator.ts';
import type { PolicyDecision } from '../../core/vocabulary.ts';
import type { PolicyRuleRecord, Store } from '../../store/index.ts';

export interface RuleChange {
  mindId: string;
  capability: string;
  targetPattern: string;
}

function requireOperator(operator: string): void {
  // A change with nobody behind it would make the audit trail worthless: a bug in the caller.
  if (!isOperatorName(operator)) throw new TypeError('a policy change needs the name of the operator making it');
}

function sameRule(rule: PolicyRuleRecord, change: RuleChange): boolean {
  return rule.capability === change.capability && rule.targetPattern === change.targetPattern;
}

/** Sets (or replaces) a rule and records `policy_rule_set` with the rule it replaced, if any. */
export async function setPolicyRule(store: Store, change: RuleChange & { decision: PolicyDecision; approvers: number }, operator: string): Promise<PolicyRuleRecord> {
  requireOperator(operator);
  return store.transaction(async (tx) => {
    // Two operators changing the mind's rules at once: the second reads what the first wrote, so
    // each event names the rule it really replaced.
    await tx.minds.lockForUpdate(change.mindId);
    const before = (await tx.policyRules.listByMind(change.mindId)).find((rule) => sameRule(rule, change));
    const rule = await tx.policyRules.set(change);
    await tx.events.append({
      type: 'policy_rule_set',
      mindId: change.mindId,
      data: {
        operator: operator.trim(),
        capability: rule.capability,
        target_pattern: rule.targetPattern,
        decision: rule.decision,
        approvers: rule.approvers,
        previous: before ? { decision: before.decision, approvers: before.approvers } : null,
      },
    });
    return rule;
  });
}

/** Removes a rule and records `policy_rule_removed` with what it said; false when there was none. */
export async function removePolicyRule(store: Store, change: RuleChange, operator: string): Promise<boolean> {
  requireOperator(operator);
  return store.transaction(async (tx) => {
    // Two operators changing the mind's rules at once: the second reads what the first wrote, so
    // each event names the rule it really replaced.
    await tx.minds.lockForUpdate(change.mindId);
    const before = (await tx.policyRules.listByMind(change.mindId)).find((rule) => sameRule(rule, change));
    if (!before || !(await tx.policyRules.remove(change.mindId, change.capability, change.targetPattern))) return false;
    await tx.events.append({
      type: 'policy_rule_removed',
      mindId: change.mindId,
      data: { operator: operator.trim(), capability: before.capability, target_pattern: before.targetPattern, decision: before.decision, approvers: before.approvers },
    });
    return true;
  });
}

// The capability catalogue, a mind's standing policy over it, previews, and policy changes.

import type { Principal } from '../access/permissions.ts';
import type { CapabilityDefinition } from '../capabilities/definition.ts';
import type { Preview } from '../capabilities/invocation.ts';
import { loadPolicyInputs } from '../capabilities/policy-inputs.ts';
import { DEFAULT_RULES, mostSpecificRule, type PolicyRule } from '../capabilities/policy/decide.ts';
import * as changePolicy from '../capabilities/policy/changes.ts';
import { checkTargetPattern, matchesTarget } from '../capabilities/policy/target-pattern.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { CapabilityService } from '../capabilities/service.ts';
import { InputError, type Problem } from '../core/errors.ts';
import type { JsonObject } from '../core/plan.ts';
import type { PolicyDecision } from '../core/vocabulary.ts';
import { policyViewOf } from '../drafting/policy-view.ts';
import type { PolicyAnswer } from '../planning/planner-types.ts';
import type { PolicyRuleRecord, Store } from '../store/index.ts';
import { NotFound } from './errors.ts';
import { resolveMind } from './minds.ts';

export interface CatalogueEntry {
  name: string;
  description: string;
  read_only: boolean;
  idempotent: boolean;
  locked: boolean;
  timeout_seconds: number;
  cost: CapabilityDefinition['cost'];
  observes: readonly string[];
  params_schema: JsonObject;
}

export function catalogue(registry: CapabilityRegistry): CatalogueEntry[] {
  return registry.list().map((d) => ({
    name: d.name,
    description: d.description,
    read_only: d.readOnly,
    idempotent: d.idempotent,
    locked: d.locked,
    timeout_seconds: d.timeoutSeconds,
    cost: d.cost,
    observes: d.observes,
    params_schema: d.paramsSchema,
  }));
}

/** The catalogue with what policy says right now for this mind on any target (`*`). */
export async function mindCatalogue(store: Store, registry: CapabilityRegistry, principal: Principal, mindRef: string): Promise<(CatalogueEntry & { policy: PolicyAnswer })[]> {
  const mind = await resolveMind(store, principal, mindRef);
  const now = store.clock.now();
  const view = policyViewOf(registry, await loadPolicyInputs(store, mind.id, now, { grants: true }), now);
  return catalogue(registry).map((entry) => ({ ...entry, policy: view.decide(entry.name, '*', {}) }));
}

export async function previewInvocation(store: Store, capabilities: CapabilityService, principal: Principal, mindRef: string, input: { capability: string; params: JsonObject }): Promise<Preview> {
  const mind = await resolveMind(store, principal, mindRef);
  return capabilities.preview({ mindId: mind.id, capability: input.capability, params: input.params, origin: `operator:${principal.operator}` });
}

export async function policyOf(store: Store, principal: Principal, mindRef: string): Promise<{ rules: PolicyRuleRecord[]; defaults: readonly PolicyRule[] }> {
  const mind = await resolveMind(store, principal, mindRef);
  return { rules: await store.policyRules.listByMind(mind.id), defaults: DEFAULT_RULES };
}

/** Any target: the one a catalogue's standing decision is for. */
const ANY_TARGET = '*';

/**
 * The mind's rules that decide `capability` on some targets differently from its standing
 * decision: rules naming a narrower target, whose capability is the name or a glob over it
 * (`service.*`), and which win over the mind's rule for any target on the targets they name
 * (a more specific capability pattern for any target outranks them: mostSpecificRule).
 */
export function narrowerRules(rules: readonly PolicyRuleRecord[], capability: string): PolicyRuleRecord[] {
  const asRule = (r: PolicyRuleRecord): PolicyRule => ({ capability: r.capability, target_pattern: r.targetPattern, decision: r.decision, approvers: r.approvers });
  const standing = mostSpecificRule(rules.map(asRule), capability, ANY_TARGET);
  return rules.filter((r) => {
    if (r.targetPattern === ANY_TARGET || !matchesTarget(r.capability, capability)) return false;
    const rule = asRule(r);
    return standing === undefined || mostSpecificRule([rule, standing], capability, r.targetPattern) === rule;
  });
}

/** A capability name or a glob over names, such as `service.restart` or `host.*`. */
const CAPABILITY_PATTERN = /^[a-z*?][a-z0-9_.*?]*$/;

function checkRuleKey(capability: string, targetPattern: string): Problem[] {
  const problems: Problem[] = [];
  if (!CAPABILITY_PATTERN.test(capability)) {
    problems.push({ code: 'invalid_capability', path: 'capability', message: 'a capability name or glob such as service.restart or host.*' });
  }
  const pattern = checkTargetPattern(targetPattern);
  if (pattern) problems.push({ code: 'invalid_target_pattern', path: 'target_pattern', message: pattern });
  return problems;
}

export interface RuleInput {
  capability: string;
  target_pattern: string;
  decision: PolicyDecision;
  approvers?: 1 | 2 | undefined;
}

/** Sets a rule, recorded as `policy_rule_set` with the principal's operator (src/capabilities/policy/changes.ts). */
export async function setPolicyRule(store: Store, principal: Principal, mindRef: string, input: RuleInput): Promise<PolicyRuleRecord> {
  const mind = await resolveMind(store, principal, mindRef);
  const problems = checkRuleKey(input.capability, input.target_pattern);
  if (problems.length > 0) throw new InputError(problems);
  return changePolicy.setPolicyRule(
    store,
    { mindId: mind.id, capability: input.capability, targetPattern: input.target_pattern, decision: input.decision, approvers: input.approvers ?? 1 },
    principal.operator,
  );
}

/** Removes a rule, recorded as `policy_rule_removed` with the principal's operator. */
export async function removePolicyRule(store: Store, principal: Principal, mindRef: string, input: { capability: string; target_pattern: string }): Promise<{ removed: true }> {
  const mind = await resolveMind(store, principal, mindRef);
  const problems = checkRuleKey(input.capability, input.target_pattern);
  if (problems.length > 0) throw new InputError(problems);
  if (!(await changePolicy.removePolicyRule(store, { mindId: mind.id, capability: input.capability, targetPattern: input.target_pattern }, principal.operator))) {
    throw new NotFound('capability', `mind ${mind.name} has no rule for ${input.capability} on ${input.target_pattern}`, 'no_rule');
  }
  return { removed: true };
}

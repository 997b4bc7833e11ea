// What a mind can do and what policy would say: list_capabilities and preview_decision. Both
// only read: a preview decides as an invocation would, records nothing and acts on nothing.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PolicyVerdict, Preview } from '../../operations/index.ts';
import { InputError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/plan.ts';
import { mindCatalogue, narrowerRules, policyOf, previewInvocation } from '../../operations/catalogue.ts';
import type { ToolContext } from '../deps.ts';
import { mindField, paramsField, toolInput } from '../input.ts';
import { answer, guarded, refusal } from '../refusal.ts';

export function registerCapabilityTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_capabilities',
    {
      title: 'List capabilities',
      description:
        "Every capability Praxis can use for the mind: what it does, its parameter JSON schema, whether it only reads or writes, whether repeating it is harmless, and what the mind's policy decides for it today (allow, ask, deny) on a target no narrower rule names, with the narrower rules.",
      inputSchema: toolInput({ mind: mindField }),
      annotations: { readOnlyHint: true },
    },
    ({ mind }) =>
      guarded(async () => {
        ctx.caller.require('read', 'list_capabilities');
        const record = await ctx.caller.mind(mind);
        const entries = await mindCatalogue(ctx.store, ctx.registry, ctx.caller.principal, record.id);
        const { rules } = await policyOf(ctx.store, ctx.caller.principal, record.id);
        const capabilities = entries.map((entry) => {
          const narrower = narrowerRules(rules, entry.name);
          return {
            ...entry,
            policy: { ...entry.policy, narrower_rules: narrower.map((r) => ({ target_pattern: r.targetPattern, decision: r.decision, approvers: r.approvers })) },
          };
        });
        return answer({ mind: { id: record.id, name: record.name, status: record.status }, capabilities });
      }),
  );

  server.registerTool(
    'preview_decision',
    {
      title: 'Preview a policy decision',
      description:
        'What would happen if the mind invoked this capability with these parameters now: run without asking, ask one or two operators, or be refused, and why. Nothing is recorded and nothing runs.',
      inputSchema: toolInput({
        mind: mindField,
        capability: z.string().min(1).describe('a capability name from list_capabilities, e.g. service.restart'),
        params: paramsField,
      }),
      annotations: { readOnlyHint: true },
    },
    ({ mind, capability, params }) =>
      guarded(async () => {
        ctx.caller.require('read', 'preview_decision');
        const record = await ctx.caller.mind(mind);
        const preview = await previewInvocation(ctx.store, ctx.capabilities, ctx.caller.principal, record.id, { capability, params: params as JsonObject });
        if (preview.decision === 'invalid') throw new InputError(preview.issues);
        if (!preview.verdict) throw refusal('invalid_params', 'params', 'the call could not be decided');
        return answer({ mind: { id: record.id, name: record.name }, ...describePreview(preview, preview.verdict) });
      }),
  );
}

/** What a preview means for a caller deciding what to propose. */
function describePreview(preview: Preview, verdict: PolicyVerdict) {
  const outcome =
    preview.needs === 'nothing'
      ? 'runs without asking'
      : preview.needs === 'refused'
        ? 'refused'
        : preview.needs === 'two_approvals'
          ? 'waits for two operators to approve'
          : 'waits for an operator to approve';
  // A grant lifts only a plain `ask` from policy; a commitment or an explicit requirement to ask
  // stays whatever is granted, and a deny is never lifted.
  const grantWouldLift = verdict.decision === 'ask' && (verdict.source === 'rule' || verdict.source === 'default');
  return {
    capability: preview.capability,
    target: preview.target,
    decision: preview.decision,
    needs: preview.needs,
    outcome,
    grant_would_lift: grantWouldLift,
    why: verdict.reason,
    source: verdict.source,
  };
}

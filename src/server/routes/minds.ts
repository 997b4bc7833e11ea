// Minds and what hangs off one mind: intentions, plans, policy, capabilities, memories.

import { Type } from 'typebox';
import {
  createMind,
  listIntentions,
  listMinds,
  listPlans,
  mindCalibration,
  mindCatalogue,
  policyOf,
  previewInvocation,
  proceduralMemories,
  proposeIntention,
  removePolicyRule,
  resolveMind,
  setPolicyRule,
  submitPlanDraft,
} from '../../operations/index.ts';
import { joinPath } from '../../core/errors.ts';
import type { Submitted } from '../../operations/plans.ts';
import { principal } from '../auth.ts';
import { errorBody, type ErrorBody } from '../../core/errors.ts';
import { IntentionStatusParam, MindParams, PageQuery, PlanStatusParam, PolicyDecisionParam, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';
import { ERROR_CODES } from '../../core/error-codes.ts';

const CapabilityName = Type.String({ minLength: 1, maxLength: 200 });
const Params = Type.Record(Type.String(), Type.Unknown(), { description: "the capability's parameters" });

/**
 * An invalid plan is kept as a `draft` (so its author can read it back with its errors), but the
 * answer must not read as success: 422 with the usual error shape, whose problems are the
 * validation errors at `body.<path>`, and the draft that was stored beside it.
 */
export function invalidPlanAnswer(submitted: Submitted): ErrorBody & { draft: Omit<Submitted, 'errors'> } {
  const { errors, ...draft } = submitted;
  const count = `${errors.length} error${errors.length === 1 ? '' : 's'}`;
  const message = `the plan is invalid (${count}): it was kept as draft ${submitted.plan_id}, which will never run; correct it and submit it again`;
  const problems = errors.map((e) => ({ code: e.code, message: e.message, path: joinPath('body', e.path) }));
  return { ...errorBody('invalid_plan', message, problems), draft };
}

export function mindRoutes(api: Api, ctx: Services): void {
  const { store, registry, capabilities, planning } = ctx;
  const read = { permission: 'read' as const };

  api.get('/whoami', { config: read, schema: { tags: ['access'], summary: 'the identity behind the token' } }, async (request) => {
    const who = principal(request);
    return { operator: who.operator, role: who.role, mind_id: who.mindId };
  });

  api.get('/minds', { config: read, schema: { tags: ['minds'], querystring: strictObject({ ...PageQuery }) } }, async (request) => listMinds(store, principal(request), request.query));

  api.post(
    '/minds',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['minds'],
        body: strictObject({
          name: Type.String({ minLength: 1, maxLength: 63 }),
          host: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 253 }), Type.Null()])),
          sandbox: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (request, reply) => reply.code(201).send(await createMind(store, request.body)),
  );

  api.get('/minds/:mind', { config: read, schema: { tags: ['minds'], params: MindParams } }, async (request) => resolveMind(store, principal(request), request.params.mind));

  api.get(
    '/minds/:mind/intentions',
    { config: read, schema: { tags: ['intentions'], params: MindParams, querystring: strictObject({ ...PageQuery, status: Type.Optional(IntentionStatusParam) }) } },
    async (request) => listIntentions(store, principal(request), request.params.mind, request.query),
  );

  api.post(
    '/minds/:mind/intentions',
    {
      config: { permission: 'propose' },
      schema: {
        tags: ['intentions'],
        summary: 'form an intention and plan it',
        params: MindParams,
        body: strictObject({
          objective: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
          means: Type.Optional(strictObject({ capability: CapabilityName, target: Type.Optional(Type.String({ maxLength: 2000 })), params: Params })),
          require_approval: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const proposal = {
        ...(body.objective !== undefined ? { objective: body.objective } : {}),
        ...(body.means !== undefined ? { means: { ...body.means, params: body.means.params as never } } : {}),
        ...(body.require_approval !== undefined ? { require_approval: body.require_approval } : {}),
      };
      return reply.code(201).send(await proposeIntention(store, planning, principal(request), request.params.mind, proposal));
    },
  );

  api.get(
    '/minds/:mind/plans',
    { config: read, schema: { tags: ['plans'], params: MindParams, querystring: strictObject({ ...PageQuery, status: Type.Optional(PlanStatusParam) }) } },
    async (request) => listPlans(store, principal(request), { ...request.query, mind: request.params.mind }),
  );

  api.post(
    '/minds/:mind/plans',
    {
      config: { permission: 'propose', acceptsYaml: true },
      schema: {
        tags: ['plans'],
        summary: 'submit a plan draft as JSON or YAML (docs/plan-format.md)',
        params: MindParams,
        // The plan validator is the schema of a draft: it reports unknown fields itself, with
        // paths into the draft, keeps an invalid draft as a `draft` plan, and refuses input that
        // is not a plan at all (422), which a schema here would turn into a 400.
        body: Type.Unknown({ description: 'a plan draft (docs/plan-format.md)' }),
      },
    },
    async (request, reply) => {
      const submitted = await submitPlanDraft(store, registry, principal(request), request.params.mind, request.body);
      return submitted.status === 'draft' ? reply.code(ERROR_CODES.invalid_plan.status).send(invalidPlanAnswer(submitted)) : reply.code(201).send(submitted);
    },
  );

  api.get('/minds/:mind/capabilities', { config: read, schema: { tags: ['capabilities'], params: MindParams } }, async (request) => ({
    items: await mindCatalogue(store, registry, principal(request), request.params.mind),
  }));

  api.post(
    '/minds/:mind/preview',
    {
      config: read,
      schema: { tags: ['capabilities'], summary: 'the decision an invocation would meet; records nothing', params: MindParams, body: strictObject({ capability: CapabilityName, params: Params }) },
    },
    async (request) => previewInvocation(store, capabilities, principal(request), request.params.mind, { capability: request.body.capability, params: request.body.params as never }),
  );

  api.get('/minds/:mind/policy', { config: read, schema: { tags: ['policy'], params: MindParams } }, async (request) => policyOf(store, principal(request), request.params.mind));

  const RuleKey = { capability: Type.String({ minLength: 1, maxLength: 200 }), target_pattern: Type.String({ minLength: 1, maxLength: 512 }) };
  api.put(
    '/minds/:mind/policy',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['policy'],
        params: MindParams,
        body: strictObject({ ...RuleKey, decision: PolicyDecisionParam, approvers: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])) }),
      },
    },
    async (request) => ({ rule: await setPolicyRule(store, principal(request), request.params.mind, request.body) }),
  );

  api.delete('/minds/:mind/policy', { config: { permission: 'administer' }, schema: { tags: ['policy'], params: MindParams, body: strictObject(RuleKey) } }, async (request) =>
    removePolicyRule(store, principal(request), request.params.mind, request.body),
  );

  api.get('/minds/:mind/procedural-memories', { config: read, schema: { tags: ['minds'], params: MindParams, querystring: strictObject({ ...PageQuery }) } }, async (request) =>
    proceduralMemories(store, principal(request), request.params.mind, request.query),
  );

  api.get('/minds/:mind/calibration', { config: read, schema: { tags: ['minds'], params: MindParams } }, async (request) => mindCalibration(store, principal(request), request.params.mind));
}

// Plans addressed through their mind: previewing a draft before submitting it, reading or
// cancelling one of the mind's plans, and releasing a blocked step of one. See docs/api.md.

import { Type } from 'typebox';
import { cancelMindPlan, mindPlanDetail, previewPlanDraft, releaseMindPlanStep } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { Id, MindParams, MindRef, Note, ReasonBody, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

export function mindPlanRoutes(api: Api, ctx: Services): void {
  const { store } = ctx;

  api.post(
    '/minds/:mind/plans/preview',
    {
      config: { permission: 'read', acceptsYaml: true },
      schema: {
        tags: ['plans'],
        summary: 'what a plan draft would meet now, step by step; stores nothing',
        params: MindParams,
        // As for a submission, the plan validator is the schema of a draft.
        body: Type.Unknown({ description: 'a plan draft (docs/plan-format.md)' }),
      },
    },
    async (request) => previewPlanDraft(store, ctx.registry, principal(request), request.params.mind, request.body),
  );

  const MindPlanParams = strictObject({ mind: MindRef, id: Id });

  api.get(
    '/minds/:mind/plans/:id',
    { config: { permission: 'read' }, schema: { tags: ['plans'], summary: 'a plan of this mind with its steps, as GET /plans/{id}', params: MindPlanParams } },
    async (request) => mindPlanDetail(store, ctx.registry, principal(request), request.params.mind, request.params.id),
  );

  api.post(
    '/minds/:mind/plans/:id/cancel',
    { config: { permission: 'decide' }, schema: { tags: ['plans'], summary: 'cancel a plan of this mind', params: MindPlanParams, body: ReasonBody } },
    async (request) => ({ plan: await cancelMindPlan(store, ctx.registry, ctx.capabilities, principal(request), request.params.mind, request.params.id, request.body.reason) }),
  );

  api.post(
    '/minds/:mind/plans/:id/steps/:step/retry',
    {
      config: { permission: 'decide' },
      schema: {
        tags: ['plans'],
        summary: 'release a blocked step of a plan of this mind',
        params: strictObject({ mind: MindRef, id: Id, step: Type.String({ minLength: 1, maxLength: 200, description: 'step key or id' }) }),
        body: strictObject({ note: Type.Optional(Note) }),
      },
    },
    async (request) => releaseMindPlanStep(store, principal(request), request.params.mind, request.params.id, request.params.step, request.body.note),
  );
}

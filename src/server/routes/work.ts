// Intentions and plans addressed by id: detail views, timelines, cancelling, releasing steps.

import { Type } from 'typebox';
import { auditTrail, cancelIntention, cancelPlan, catalogue, intentionDetail, listPlans, planDetail, releasePlanStep, timeline } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { Id, IdParams, MindParams, MindRef, Note, PageQuery, PlanStatusParam, ReasonBody, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

export function workRoutes(api: Api, ctx: Services): void {
  const { store, registry, capabilities } = ctx;
  const read = { permission: 'read' as const };
  const decide = { permission: 'decide' as const };

  api.get('/capabilities', { config: read, schema: { tags: ['capabilities'], summary: 'the capability catalogue' } }, async () => ({
    items: catalogue(registry),
  }));

  api.get('/intentions/:id', { config: read, schema: { tags: ['intentions'], params: IdParams } }, async (request) => intentionDetail(store, principal(request), request.params.id));

  api.post('/intentions/:id/cancel', { config: decide, schema: { tags: ['intentions'], params: IdParams, body: ReasonBody } }, async (request) => ({
    intention: await cancelIntention(store, registry, capabilities, principal(request), request.params.id, request.body.reason),
  }));

  api.get(
    '/plans',
    {
      config: read,
      schema: {
        tags: ['plans'],
        querystring: strictObject({ ...PageQuery, mind: Type.Optional(MindRef), status: Type.Optional(PlanStatusParam), intention: Type.Optional(Id) }),
      },
    },
    async (request) => listPlans(store, principal(request), request.query),
  );

  api.get('/plans/:id', { config: read, schema: { tags: ['plans'], summary: 'a plan with its steps, their linked records, use and revisions', params: IdParams } }, async (request) =>
    planDetail(store, registry, principal(request), request.params.id),
  );

  api.post('/plans/:id/cancel', { config: decide, schema: { tags: ['plans'], params: IdParams, body: ReasonBody } }, async (request) => ({
    plan: await cancelPlan(store, registry, capabilities, principal(request), request.params.id, request.body.reason),
  }));

  api.post(
    '/plans/:id/steps/:step/retry',
    {
      config: decide,
      schema: {
        tags: ['plans'],
        summary: 'release a blocked step',
        params: strictObject({ id: Id, step: Type.String({ minLength: 1, maxLength: 200, description: 'step key or id' }) }),
        body: strictObject({ note: Type.Optional(Note) }),
      },
    },
    async (request) => releasePlanStep(store, principal(request), request.params.id, request.params.step, request.body.note),
  );

  const timelineQuery = strictObject({
    ...PageQuery,
    order: Type.Optional(Type.Union([Type.Literal('oldest'), Type.Literal('newest')], { description: 'oldest (default): oldest first; newest: newest first, paging towards older events' })),
  });
  const auditQuery = strictObject({ ...PageQuery });
  api.get('/minds/:mind/timeline', { config: read, schema: { tags: ['timeline'], params: MindParams, querystring: timelineQuery } }, async (request) =>
    timeline(store, principal(request), { mind: request.params.mind }, request.query),
  );
  api.get('/intentions/:id/timeline', { config: read, schema: { tags: ['timeline'], params: IdParams, querystring: timelineQuery } }, async (request) =>
    timeline(store, principal(request), { intention: request.params.id }, request.query),
  );
  api.get('/plans/:id/timeline', { config: read, schema: { tags: ['timeline'], params: IdParams, querystring: timelineQuery } }, async (request) =>
    timeline(store, principal(request), { plan: request.params.id }, request.query),
  );
  api.get(
    '/audit',
    { config: read, schema: { tags: ['timeline'], summary: 'policy changes, tokens issued and revoked, authors named, approvals failing their digest', querystring: auditQuery } },
    async (request) => auditTrail(store, principal(request), request.query),
  );
}

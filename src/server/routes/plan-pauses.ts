// Pausing and resuming a plan (by id, or through its mind as the other plan actions are
// addressed) and every open plan of a mind. See docs/api.md and docs/executor.md.

import { Type } from 'typebox';
import { pauseMind, pausePlan, resumeMind, resumePlan } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { Id, IdParams, MindParams, MindRef, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

const PauseBody = strictObject({ reason: Type.Optional(Type.String({ maxLength: 2000, description: "why, in the operator's words" })) });
const MindPlanParams = strictObject({ mind: MindRef, id: Id });

export function planPauseRoutes(api: Api, ctx: Services): void {
  const { store } = ctx;
  const decide = { permission: 'decide' as const };
  const plans = { tags: ['plans'], body: PauseBody };

  api.post('/plans/:id/pause', { config: decide, schema: { ...plans, summary: 'pause a plan: it claims no new step until resumed', params: IdParams } }, async (request) =>
    pausePlan(store, principal(request), request.params.id, { reason: request.body.reason }),
  );
  api.post('/plans/:id/resume', { config: decide, schema: { ...plans, summary: 'resume a paused plan', params: IdParams } }, async (request) =>
    resumePlan(store, principal(request), request.params.id, { reason: request.body.reason }),
  );
  api.post('/minds/:mind/plans/:id/pause', { config: decide, schema: { ...plans, summary: 'pause a plan of this mind', params: MindPlanParams } }, async (request) =>
    pausePlan(store, principal(request), request.params.id, { reason: request.body.reason, mind: request.params.mind }),
  );
  api.post('/minds/:mind/plans/:id/resume', { config: decide, schema: { ...plans, summary: 'resume a paused plan of this mind', params: MindPlanParams } }, async (request) =>
    resumePlan(store, principal(request), request.params.id, { reason: request.body.reason, mind: request.params.mind }),
  );
  api.post('/minds/:mind/pause', { config: decide, schema: { tags: ['minds'], body: PauseBody, summary: 'pause every open plan of the mind', params: MindParams } }, async (request) =>
    pauseMind(store, principal(request), request.params.mind, { reason: request.body.reason }),
  );
  api.post('/minds/:mind/resume', { config: decide, schema: { tags: ['minds'], body: PauseBody, summary: 'resume every paused plan of the mind', params: MindParams } }, async (request) =>
    resumeMind(store, principal(request), request.params.mind, { reason: request.body.reason }),
  );
}

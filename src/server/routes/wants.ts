// Wants and dreams (docs/mind.md, "Wants and dreams"): what a mind wants, and what a dream leaves.

import { Type } from 'typebox';
import { WANT_STATUSES } from '../../core/vocabulary.ts';
import { MAX_DREAM_ITEMS, listWants, recordDream } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { MindParams, PageQuery, oneOf, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

export function wantRoutes(api: Api, ctx: Services): void {
  const { store, registry } = ctx;

  api.get(
    '/minds/:mind/wants',
    { config: { permission: 'read' }, schema: { tags: ['minds'], params: MindParams, querystring: strictObject({ ...PageQuery, status: Type.Optional(oneOf(WANT_STATUSES)) }) } },
    async (request) => listWants(store, principal(request), request.params.mind, request.query),
  );

  api.post(
    '/minds/:mind/dreams',
    {
      config: { permission: 'propose' },
      schema: {
        tags: ['minds'],
        summary: 'record what a dream leaves: open wants, and draft plans (origin dream) that never run',
        params: MindParams,
        body: strictObject({
          wants: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: MAX_DREAM_ITEMS })),
          drafts: Type.Optional(Type.Array(Type.Unknown({ description: 'a plan draft (docs/plan-format.md)' }), { maxItems: MAX_DREAM_ITEMS })),
        }),
      },
    },
    async (request, reply) => reply.code(201).send(await recordDream(store, registry, principal(request), request.params.mind, request.body)),
  );
}

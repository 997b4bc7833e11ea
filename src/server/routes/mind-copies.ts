// Forking, exporting and importing minds (administrators only: a copy carries the mind's policy).
// See docs/api.md and docs/mind.md.

import { Type } from 'typebox';
import { exportMindBundle, forkMindCopy, importMindBundle } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { MindParams, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

/** A bundle is a whole mind: larger than any plan, so its route takes more than the usual body limit. */
const BUNDLE_BODY_LIMIT = 32 * 1024 * 1024;
const MindName = Type.String({ minLength: 1, maxLength: 63, description: 'the new mind' });

export function mindCopyRoutes(api: Api, ctx: Services): void {
  const { store } = ctx;
  const administer = { permission: 'administer' as const };

  api.post(
    '/minds/:mind/fork',
    {
      config: administer,
      schema: {
        tags: ['minds'],
        summary: 'a disabled sandbox copy of the mind, its inherited work quiesced; never its approvals or grants',
        params: MindParams,
        body: strictObject({ name: MindName }),
      },
    },
    async (request, reply) => reply.code(201).send(await forkMindCopy(store, principal(request), request.params.mind, request.body.name)),
  );

  api.get('/minds/:mind/export', { config: administer, schema: { tags: ['minds'], summary: 'the mind as a versioned bundle (docs/mind.md)', params: MindParams } }, async (request) =>
    exportMindBundle(store, principal(request), request.params.mind),
  );

  api.post(
    '/minds/import',
    {
      config: administer,
      bodyLimit: BUNDLE_BODY_LIMIT,
      schema: {
        tags: ['minds'],
        summary: 'a new mind from a bundle, its inherited work quiesced',
        // The bundle is checked by the import itself, which names problems by their path in it.
        body: strictObject({ bundle: Type.Unknown({ description: 'a bundle from GET /minds/{mind}/export' }), name: Type.Optional(MindName) }),
      },
    },
    async (request, reply) => reply.code(201).send(await importMindBundle(store, principal(request), request.body.bundle, { name: request.body.name, bundlePath: 'bundle' })),
  );
}

// The approval and request centres, and the decisions taken in them.

import { Type } from 'typebox';
import { amendMindApproval, approvalCentre, decideApproval, denyRequest, grantRequest, listGrants, nameApprovalAuthor, requestCentre, revokeGrant, withdrawRequest } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { ApprovalStatusParam, EmptyBody, GrantStatusParam, Id, IdParams, MindRef, Note, NoteBody, PageQuery, RequestStatusParam, strictObject } from '../schemas.ts';
import type { Services } from '../../operations/services.ts';
import type { Api } from './context.ts';

/** Who is named as an action's author: a name, as a token's operator is. */
const OperatorName = Type.String({ minLength: 1, maxLength: 200 });

export function decisionRoutes(api: Api, ctx: Services): void {
  const { store, capabilities } = ctx;
  const read = { permission: 'read' as const };
  const decide = { permission: 'decide' as const };

  api.get('/approvals', { config: read, schema: { tags: ['approvals'], querystring: strictObject({ status: Type.Optional(ApprovalStatusParam), mind: Type.Optional(MindRef) }) } }, async (request) =>
    approvalCentre(store, capabilities, principal(request), request.query),
  );
  api.post(
    '/approvals/:id/approve',
    {
      config: decide,
      schema: {
        tags: ['approvals'],
        params: IdParams,
        body: strictObject({
          note: Type.Optional(Note),
          digest: Type.Optional(Type.String({ maxLength: 200, description: 'the digest of the request as the approver saw it; refused (409 changed) when it was amended since' })),
        }),
      },
    },
    async (request) => decideApproval(store, capabilities, principal(request), request.params.id, 'approve', request.body.note, request.body.digest),
  );
  api.post(
    '/approvals/:id/author',
    {
      config: decide,
      schema: {
        tags: ['approvals'],
        summary: 'name the author of a request raised without one; the operator naming it may not approve it',
        params: IdParams,
        body: strictObject({ author: OperatorName, note: Type.Optional(Note) }),
      },
    },
    async (request) => nameApprovalAuthor(store, capabilities, principal(request), request.params.id, request.body.author, request.body.note),
  );
  api.post(
    '/minds/:mind/approvals/:id/amend',
    {
      config: decide,
      schema: {
        tags: ['approvals'],
        summary: "amend a pending request's action before approving it; the amending operator becomes an author and may not approve it",
        params: strictObject({ mind: MindRef, id: Id }),
        body: strictObject({
          params: Type.Record(Type.String(), Type.Unknown(), { description: "the action's new parameters, whole (the capability's schema applies)" }),
          target: Type.Optional(Type.String({ maxLength: 512, description: 'the target the new parameters must imply' })),
          reason: Type.Optional(Note),
          digest: Type.Optional(
            Type.String({
              maxLength: 200,
              description: 'the digest of the request as the operator saw it; refused (409 changed) when it was amended since. Without it, the amendment applies to the request as it stands',
            }),
          ),
        }),
      },
    },
    async (request) =>
      amendMindApproval(store, capabilities, principal(request), request.params.mind, request.params.id, {
        params: request.body.params,
        ...(request.body.target !== undefined ? { target: request.body.target } : {}),
        ...(request.body.reason !== undefined ? { reason: request.body.reason } : {}),
        ...(request.body.digest !== undefined ? { seenDigest: request.body.digest } : {}),
      }),
  );
  api.post('/approvals/:id/deny', { config: decide, schema: { tags: ['approvals'], params: IdParams, body: NoteBody } }, async (request) =>
    decideApproval(store, capabilities, principal(request), request.params.id, 'deny', request.body.note),
  );

  api.get(
    '/capability-requests',
    { config: read, schema: { tags: ['capability requests'], querystring: strictObject({ status: Type.Optional(RequestStatusParam), mind: Type.Optional(MindRef) }) } },
    async (request) => requestCentre(store, principal(request), request.query),
  );
  api.post(
    '/capability-requests/:id/grant',
    {
      config: decide,
      schema: {
        tags: ['capability requests'],
        summary: 'grant, optionally narrower than asked',
        params: IdParams,
        body: strictObject({
          duration_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
          uses: Type.Optional(Type.Integer({ minimum: 1 })),
          target_pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        }),
      },
    },
    async (request) => grantRequest(store, capabilities, principal(request), request.params.id, request.body),
  );
  api.post('/capability-requests/:id/deny', { config: decide, schema: { tags: ['capability requests'], params: IdParams, body: NoteBody } }, async (request) =>
    denyRequest(store, capabilities, principal(request), request.params.id, request.body.note),
  );
  api.post('/capability-requests/:id/withdraw', { config: { permission: 'propose' }, schema: { tags: ['capability requests'], params: IdParams, body: EmptyBody } }, async (request) =>
    withdrawRequest(store, capabilities, principal(request), request.params.id),
  );

  api.get(
    '/grants',
    { config: read, schema: { tags: ['grants'], querystring: strictObject({ ...PageQuery, mind: Type.Optional(MindRef), status: Type.Optional(GrantStatusParam) }) } },
    async (request) => listGrants(store, principal(request), request.query),
  );
  api.post('/grants/:id/revoke', { config: decide, schema: { tags: ['grants'], params: IdParams, body: EmptyBody } }, async (request) =>
    revokeGrant(store, capabilities, principal(request), request.params.id),
  );
}

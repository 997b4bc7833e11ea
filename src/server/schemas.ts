// Schemas shared by the routes. Enumerations are plain JSON Schema `enum`s (not unions of
// literals) so a wrong value gets one clear problem listing the allowed ones.

import { Type, type TSchema, type TUnsafe } from 'typebox';
import { APPROVAL_STATUSES, CAPABILITY_REQUEST_STATUSES, GRANT_STATUSES, INTENTION_STATUSES, PLAN_STATUSES, POLICY_DECISIONS } from '../core/vocabulary.ts';
import { MAX_PAGE_SIZE } from '../operations/pages.ts';

export function oneOf<const T extends readonly string[]>(values: T, description?: string): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
}

// Lower case only, as Praxis writes ids: PostgreSQL compares uuids whatever their case and
// SQLite compares text, so an upper-case id found a plan on one store and was a 404 on the other.
export const ID_DESCRIPTION = 'a UUID in lower case, as Praxis writes it';
export const Id = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: ID_DESCRIPTION });
export const MindRef = Type.String({ minLength: 1, maxLength: 200, description: "a mind's name or id" });

export const PlanStatusParam = oneOf(PLAN_STATUSES);
export const IntentionStatusParam = oneOf(INTENTION_STATUSES);
export const ApprovalStatusParam = oneOf(APPROVAL_STATUSES);
export const RequestStatusParam = oneOf(CAPABILITY_REQUEST_STATUSES);
export const GrantStatusParam = oneOf(GRANT_STATUSES);
export const PolicyDecisionParam = oneOf(POLICY_DECISIONS);

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: `page size, 1 to ${MAX_PAGE_SIZE} (default 50)` })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'next_cursor of the previous page' })),
};

export function strictObject<P extends Record<string, TSchema>>(properties: P) {
  return Type.Object(properties, { additionalProperties: false });
}

export const Note = Type.String({ maxLength: 2000 });
export const Reason = Type.String({ minLength: 1, maxLength: 2000 });

export const IdParams = strictObject({ id: Id });
export const MindParams = strictObject({ mind: MindRef });
export const NoteBody = strictObject({ note: Type.Optional(Note) });
export const ReasonBody = strictObject({ reason: Reason });
export const EmptyBody = strictObject({});

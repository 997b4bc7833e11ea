// What is worth telling a person, read from the event log. Pure: an event (and the approval or
// capability request it is about, read from the store by the caller) in, a notification out.

import type { EventRecord } from '../store/index.ts';

export const TOPICS = [
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.withdrawn',
  'capability_request.opened',
  'capability_request.granted',
  'capability_request.denied',
  'capability_request.withdrawn',
  'intention.escalated',
  'intention.blocked',
  'action.outcome_unknown',
] as const;
export type Topic = (typeof TOPICS)[number];

/** The topic an event is told under, or null when it is not told. */
export function topicOf(event: Pick<EventRecord, 'type' | 'data'>): Topic | null {
  switch (event.type) {
    case 'approval_requested':
      return 'approval.requested';
    case 'approval_approved':
      return 'approval.approved';
    case 'approval_denied':
      return 'approval.denied';
    case 'approval_expired':
      return 'approval.expired';
    case 'approval_withdrawn':
      return 'approval.withdrawn';
    case 'capability_requested':
      return 'capability_request.opened';
    case 'grant_created':
      // A grant made from a request decides it; one given unasked (praxis grant) answers nobody.
      return typeof event.data.request_id === 'string' ? 'capability_request.granted' : null;
    case 'capability_request_denied':
      return 'capability_request.denied';
    case 'capability_request_withdrawn':
      return 'capability_request.withdrawn';
    case 'intention_blocked':
      if (event.data.escalated === true) return 'intention.escalated';
      // A step waiting for an approval or a grant blocks its intention too; the approval or
      // request itself is what is told, once.
      return event.data.reason === 'awaiting_approval' || event.data.reason === 'awaiting_grant' ? null : 'intention.blocked';
    case 'tool_failed':
      // An approved one-off action whose executor stopped mid-act (stranded-approvals.ts): it
      // waits for an operator to check the host as surely as a blocked intention does. A plan
      // step in that state blocks its intention, which is told above.
      return event.data.code === 'outcome_unknown' ? 'action.outcome_unknown' : null;
    case 'intention_suspended':
      // A spent budget stops the plan and suspends its intention (rather than blocking it) until
      // an operator raises the budget or lets it go: it waits for an operator all the same.
      return event.data.reason === 'budget_exhausted' ? 'intention.blocked' : null;
    default:
      return null;
  }
}

/** The approval (or capability request) id an event is about, to read the record it needs. */
export function subjectOf(event: Pick<EventRecord, 'type' | 'data'>): { approvalId: string } | { requestId: string } | null {
  const { approval_id: approvalId, request_id: requestId } = event.data;
  if ((event.type.startsWith('approval_') || event.type === 'tool_failed') && typeof approvalId === 'string') return { approvalId };
  if ((event.type.startsWith('capability_request') || event.type === 'grant_created') && typeof requestId === 'string') return { requestId };
  return null;
}

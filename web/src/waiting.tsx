// What waits for the operator: pending approvals and open capability requests, read once for the
// navigation's count and the plans list's "waiting for …" status (a plan summary carries no
// steps, so the decisions tell which plans wait).

import type { ApprovalRecord, CapabilityRequestRecord, Grouped, PlanSummary } from './api/types.ts';
import { CLOSED_PLAN_STATUSES } from './api/types.ts';
import { useLiveResource } from './live.tsx';
import { concernsDecisions } from './pages/ApprovalCentre.tsx';

export interface WaitingWork {
  approvals: ApprovalRecord[];
  requests: CapabilityRequestRecord[];
}

const items = <T,>(grouped: Grouped<T>): T[] => grouped.groups.flatMap((group) => group.items);

export function useWaitingWork(): WaitingWork | null {
  const approvals = useLiveResource('waiting:approvals', (api) => api.get<Grouped<ApprovalRecord>>('/approvals', { status: 'pending' }), concernsDecisions);
  const requests = useLiveResource('waiting:requests', (api) => api.get<Grouped<CapabilityRequestRecord>>('/capability-requests', { status: 'open' }), concernsDecisions);
  if (!approvals.data || !requests.data) return null;
  return { approvals: items(approvals.data), requests: items(requests.data) };
}

/** The person-shaped status of an open plan: an approval raised by one of its steps, or a request of its intention. */
export function waitingStatusOf(plan: PlanSummary, work: WaitingWork | null): { status: string; label: string } | null {
  if (!work || CLOSED_PLAN_STATUSES.includes(plan.status)) return null;
  if (work.approvals.some((a) => a.evidence?.plan_id === plan.id)) return { status: 'awaiting_approval', label: 'waiting for an approval' };
  if (work.requests.some((r) => r.intentionId === plan.intentionId)) return { status: 'awaiting_grant', label: 'waiting for a grant' };
  return null;
}

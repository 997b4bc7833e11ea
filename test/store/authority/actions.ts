// The moves contenders make in the authority races, shared by the in-process contenders and the
// racer processes, so both run exactly the same repository calls.

import type { NewCapabilityRequest } from '../../../src/store/repositories/capability-requests.ts';
import type { Store } from '../../../src/store/store.ts';

export type RaceAction =
  | { op: 'idle' }
  | { op: 'approve'; approvalId: string; operator: string }
  | { op: 'withdraw'; approvalId: string }
  | { op: 'consume'; grantId: string }
  | { op: 'request'; input: NewCapabilityRequest; cap: number };

export interface RaceOutcome {
  op: RaceAction['op'];
  won: boolean;
  /** What the winner saw: the grant's operations left after its use, or the new request's id. */
  detail?: string | number;
}

export async function perform(store: Store, action: RaceAction): Promise<RaceOutcome> {
  const now = store.clock.now();
  switch (action.op) {
    case 'idle':
      return { op: action.op, won: false };
    case 'approve': {
      const decisions = [{ operator: action.operator, decision: 'approve' as const, at: now.toISOString() }];
      const approved = await store.approvals.transition(action.approvalId, 'pending', 'approved', { decisions });
      return { op: action.op, won: approved !== undefined, detail: action.operator };
    }
    case 'withdraw': {
      const withdrawn = await store.approvals.transition(action.approvalId, 'pending', 'withdrawn');
      return { op: action.op, won: withdrawn !== undefined };
    }
    case 'consume': {
      const used = await store.grants.consume(action.grantId, now);
      return used ? { op: action.op, won: true, detail: used.operationsLeft } : { op: action.op, won: false };
    }
    case 'request': {
      const created = await store.capabilityRequests.createWithinCap(action.input, action.cap);
      return created ? { op: action.op, won: true, detail: created.id } : { op: action.op, won: false };
    }
  }
}

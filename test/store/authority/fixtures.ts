// Realistic inputs for the authority repositories (executions, approvals, capability requests,
// grants): a restart of nginx on behalf of a plan step, with the evidence and explanation an
// operator would see. JSON values include nesting, unicode, quotes and keys out of order.

import { addSeconds, type Clock } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import type { NewApproval } from '../../../src/store/repositories/approvals.ts';
import type { NewCapabilityRequest } from '../../../src/store/repositories/capability-requests.ts';
import type { NewExecution } from '../../../src/store/repositories/executions.ts';
import type { NewGrant } from '../../../src/store/repositories/grants.ts';
import type { Store } from '../../../src/store/store.ts';

export async function seedMind(store: Store, prefix = 'ops'): Promise<string> {
  return (await store.minds.create({ name: `${prefix}-${newId()}` })).id;
}

export function stepOrigin(): string {
  return `plan_step:${newId()}`;
}

export function restartExecution(mindId: string, overrides: Partial<NewExecution> = {}): NewExecution {
  return {
    mindId,
    capability: 'service.restart',
    target: 'nginx.service',
    params: { unit: 'nginx.service', mode: 'replace' },
    origin: stepOrigin(),
    correlationId: `corr-${newId()}`,
    evidence: { observed: { active_state: 'failed', since: '2026-01-01T00:00:00Z' }, note: 'it\'s "down" ✗' },
    ...overrides,
  };
}

export function restartApproval(mindId: string, clock: Clock, overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    mindId,
    capability: 'service.restart',
    target: 'nginx.service',
    params: { unit: 'nginx.service' },
    origin: stepOrigin(),
    correlationId: `corr-${newId()}`,
    evidence: { status: { active_state: 'failed', sub_state: 'failed' }, journal: ['bind() failed', 'exit 1'] },
    explanation: {
      why: 'nginx is down and the intention is that it serves pages',
      risk: 'a short outage — ünïcode',
      effects: [{ kind: 'restart', unit: 'nginx.service' }],
    },
    digest: `sha256:${newId().replaceAll('-', '')}`,
    approversRequired: 1,
    authoredBy: 'model',
    batchKey: '',
    expiresAt: addSeconds(clock.now(), 3600),
    ...overrides,
  };
}

export function logAccessRequest(mindId: string, overrides: Partial<NewCapabilityRequest> = {}): NewCapabilityRequest {
  return {
    mindId,
    intentionId: null,
    origin: stepOrigin(),
    capability: 'file.read',
    targetPattern: '/var/log/nginx/*.log',
    paramLimits: { max_bytes: 65536, encodings: ['utf-8'] },
    durationSeconds: 900,
    maxOperations: 5,
    reason: 'read the error log to learn why nginx fails to start',
    risk: 'logs may contain client IP addresses',
    mitigation: 'only the last 64 KiB, read once',
    fallback: 'ask the operator to paste the log',
    alternatives: ['journal.read on nginx.service', 'ask the operator'],
    batchKey: '',
    ...overrides,
  };
}

export function logAccessGrant(mindId: string, clock: Clock, overrides: Partial<NewGrant> = {}): NewGrant {
  return {
    mindId,
    requestId: null,
    capability: 'file.read',
    targetPattern: '/var/log/nginx/*.log',
    paramLimits: { max_bytes: 65536 },
    expiresAt: addSeconds(clock.now(), 900),
    operations: 3,
    grantedBy: 'alice',
    ...overrides,
  };
}

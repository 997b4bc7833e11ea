// The read-only diagnosis of one unit, shared by `diagnose` and `diagnose_then_escalate`:
// the unit's state, host memory, disk usage and the unit's recent journal, each only where
// policy allows or asks, then one summary of whatever was found.
//
// Logs ask by default. When a grant could lift that ask (it comes from a rule or the default,
// and no live grant covers the read yet), the diagnosis first requests 30 minutes and 20 reads
// of logs.query on the unit, and reads the journal after the request. When the ask comes from a
// commitment or an explicit requirement, a grant would not lift it, so the read simply asks.

import type { JsonObject, StepDraft } from '../../core/plan.ts';
import type { PolicyView } from '../planner-types.ts';
import { stepDraft as step } from './strategy.ts';

export const LOG_ACCESS_SECONDS = 30 * 60;
export const LOG_ACCESS_OPERATIONS = 20;
export const LOG_LINES = 200;

/** Where a grant can turn an ask into an allow. */
const GRANT_CAN_LIFT = new Set(['rule', 'default']);

export interface Diagnosis {
  steps: StepDraft[];
  /** Keys of the observation steps (not the request or the summary). */
  observations: string[];
  /** Whether the journal read waits for a capability request. */
  requestsLogs: boolean;
  /** What was left out and why. */
  notes: string[];
}

interface Observation {
  key: string;
  title: string;
  capability: string;
  params: JsonObject;
  target: string;
}

/** Builds the diagnosis of `unit` under `policy` (pure). With no observation allowed, `steps` is empty. */
export function diagnosisOf(unit: string, policy: PolicyView): Diagnosis {
  const notes: string[] = [];
  const steps: StepDraft[] = [];
  const observations: string[] = [];
  const reads: Observation[] = [
    { key: 'U1', title: `Read the state of ${unit}`, capability: 'service.status', params: { unit }, target: unit },
    { key: 'M1', title: 'Read host memory', capability: 'host.memory.status', params: {}, target: 'host' },
    { key: 'D1', title: 'Read disk usage', capability: 'host.disk.usage', params: {}, target: '/' },
  ];
  for (const read of reads) {
    const answer = policy.decide(read.capability, read.target, read.params);
    if (answer.decision === 'deny') {
      notes.push(`${read.capability} on ${read.target} is denied by policy (${answer.reason}); the diagnosis goes without it`);
      continue;
    }
    if (answer.decision === 'ask') notes.push(`${read.capability} on ${read.target} will ask an operator (${answer.reason})`);
    // A read is safe to repeat once if it fails for a passing reason.
    steps.push(step({ key: read.key, title: read.title, kind: 'capability', capability: read.capability, target: read.target, params: read.params, max_attempts: 2 }));
    observations.push(read.key);
  }

  const logParams: JsonObject = { unit, since: '-1h', lines: LOG_LINES };
  const logs = policy.decide('logs.query', unit, logParams);
  let requestsLogs = false;
  if (logs.decision === 'deny') {
    notes.push(`logs.query on ${unit} is denied by policy (${logs.reason}); the diagnosis goes without the journal`);
  } else {
    const dependsOn: string[] = [];
    if (logs.decision === 'ask' && GRANT_CAN_LIFT.has(logs.source)) {
      requestsLogs = true;
      dependsOn.push('R1');
      steps.push(
        step({
          key: 'R1',
          title: `Ask for ${LOG_ACCESS_SECONDS / 60} minutes of journal access to ${unit}`,
          kind: 'request_capability',
          spec: {
            request: {
              capability: 'logs.query',
              target_pattern: unit,
              param_limits: { lines: { max: LOG_LINES } },
              duration_seconds: LOG_ACCESS_SECONDS,
              max_operations: LOG_ACCESS_OPERATIONS,
              reason: `The recent journal of ${unit} is the most direct evidence of why it misbehaves`,
              risk: 'Logs may contain personal identifiers such as e-mail and IP addresses, and credential-like values',
              mitigation: `Identifiers and credential-like values are masked by default; access is limited to ${unit}, ${LOG_ACCESS_SECONDS / 60} minutes and ${LOG_ACCESS_OPERATIONS} reads of at most ${LOG_LINES} lines`,
              fallback: `Ask the operator to read the journal of ${unit} and report what it shows`,
              alternatives: ['diagnose from the unit state, host memory and disk usage alone'],
            },
          },
        }),
      );
    } else if (logs.decision === 'ask') {
      notes.push(`logs.query on ${unit} will ask an operator (${logs.reason}); a grant would not lift that`);
    }
    steps.push(
      step({
        key: 'L1',
        title: `Read the last hour of ${unit}'s journal`,
        kind: 'capability',
        depends_on: dependsOn,
        capability: 'logs.query',
        target: unit,
        params: logParams,
        max_attempts: 2,
      }),
    );
    observations.push('L1');
  }

  if (observations.length === 0) return { steps: [], observations, requestsLogs: false, notes };
  steps.push(
    step({
      key: 'S1',
      title: `Summarise the findings about ${unit}`,
      kind: 'internal',
      depends_on: steps.map((s) => s.key),
      spec: { action: 'summarise_findings' },
    }),
  );
  return { steps, observations, requestsLogs, notes };
}

/** Expected confidence of a diagnosis: 0.5, plus 0.05 for each observation it can make (0.7 with all four). */
export function diagnosisConfidence(diagnosis: Diagnosis): number {
  return Math.round((0.5 + 0.05 * diagnosis.observations.length) * 1e6) / 1e6;
}

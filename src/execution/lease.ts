// How long a claim holds a step: the longest call the step can make (its capability's timeout,
// plus its precondition's) and a margin. A claim still held after that is taken to be
// abandoned and recovery may take the step over.

import type { CapabilityRegistry } from '../capabilities/registry.ts';
import type { StepRecord } from '../store/index.ts';
import { LEASE_MARGIN_SECONDS } from './context.ts';

export function leaseSecondsFor(step: StepRecord, steps: readonly StepRecord[], registry: CapabilityRegistry): number {
  const timeout = (name: string | undefined) => (name ? (registry.get(name)?.timeoutSeconds ?? 0) : 0);
  switch (step.kind) {
    case 'capability':
      return timeout(step.capability) + timeout(step.precondition?.capability) + LEASE_MARGIN_SECONDS;
    case 'monitor':
      return timeout(step.capability) + LEASE_MARGIN_SECONDS;
    case 'verify': {
      const verified = steps.find((s) => s.key === step.spec.verifies);
      return timeout(step.capability || verified?.expectation?.check.capability) + LEASE_MARGIN_SECONDS;
    }
    default:
      return LEASE_MARGIN_SECONDS;
  }
}

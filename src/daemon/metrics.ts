// The daemon's Prometheus metrics, in a registry of its own (never prom-client's global one, so
// two daemons in one process, as in tests, do not share counters). Gauges of plan state are read
// from the store when scraped: the store is the only truth, and several daemons sharing one
// PostgreSQL report the same numbers. Counters are what this daemon's executor did, fed by the
// executor's observer.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { PASS_PHASES, type ExecutorObserver, type TickReport, type VerifyOutcome } from '../execution/tick.ts';
import type { Store } from '../store/index.ts';

export interface DaemonMetrics {
  registry: Registry;
  /** Pass as the executor's `observer`. */
  observer: ExecutorObserver;
}

export const METRIC_NAMES = [
  'praxis_steps',
  'praxis_approvals_pending',
  'praxis_capability_requests_open',
  'praxis_ticks_total',
  'praxis_tick_duration_seconds',
  'praxis_pass_phase_seconds_total',
  'praxis_claims_lost_total',
  'praxis_verify_outcomes_total',
  'praxis_approval_to_claim_seconds',
] as const;

export function createMetrics(store: Store, onTick?: (report: TickReport, seconds: number) => void): DaemonMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  new Gauge({
    name: 'praxis_steps',
    help: 'Steps of live plans (validated, running or replanning), by status and kind',
    labelNames: ['status', 'kind'] as const,
    registers: [registry],
    async collect() {
      const counts = await store.gauges.stepsOfLivePlans();
      // Pairs that emptied since the last scrape must drop to nothing, not keep their old value.
      this.reset();
      for (const { status, kind, count } of counts) this.set({ status, kind }, count);
    },
  });
  new Gauge({
    name: 'praxis_approvals_pending',
    help: 'Approval requests waiting for an operator',
    registers: [registry],
    async collect() {
      this.set(await store.gauges.approvalsPending());
    },
  });
  new Gauge({
    name: 'praxis_capability_requests_open',
    help: 'Capability requests waiting for an operator to grant or deny them',
    registers: [registry],
    async collect() {
      this.set(await store.gauges.capabilityRequestsOpen());
    },
  });

  const ticks = new Counter({ name: 'praxis_ticks_total', help: 'Executor passes made by this daemon', registers: [registry] });
  const tickDuration = new Histogram({
    name: 'praxis_tick_duration_seconds',
    help: 'Wall time of one executor pass',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Where the executor's time goes, by part of a pass: a rate of each over the pass total says
  // whether a busy daemon is acting, writing or settling.
  const passPhases = new Counter({
    name: 'praxis_pass_phase_seconds_total',
    help: 'Wall time of the executor passes by part: housekeeping, starting plans, finding due steps, reading plans, acting, moving, settling',
    labelNames: ['phase'] as const,
    registers: [registry],
  });
  for (const phase of PASS_PHASES) passPhases.inc({ phase }, 0);
  const claimsLost = new Counter({
    name: 'praxis_claims_lost_total',
    help: 'Due steps another executor moved first, or whose claim ran out before the outcome was written',
    registers: [registry],
  });
  const verifyOutcomes = new Counter({
    name: 'praxis_verify_outcomes_total',
    help: 'Verify step runs by outcome: confirmed, refuted, unverified, skipped, or pending (will look again)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Present from the first scrape, so a rate over a fresh daemon is zero rather than missing.
  for (const outcome of ['confirmed', 'refuted', 'unverified', 'skipped', 'pending'] satisfies VerifyOutcome[]) verifyOutcomes.inc({ outcome }, 0);

  // From the decisive approval (its recorded time) to this daemon's claim of the approved step:
  // what an operator waits between approving and the act starting, across daemons too.
  const approvalToClaim = new Histogram({
    name: 'praxis_approval_to_claim_seconds',
    help: 'From an approval being decided to the approved step being claimed by this daemon',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30],
    registers: [registry],
  });

  const observer: ExecutorObserver = {
    tick(report, seconds) {
      ticks.inc();
      tickDuration.observe(seconds);
      onTick?.(report, seconds);
    },
    phase(phase, seconds) {
      passPhases.inc({ phase }, seconds);
    },
    claimLost() {
      claimsLost.inc();
    },
    verified(outcome) {
      verifyOutcomes.inc({ outcome });
    },
    approvalClaimed(approval) {
      // decidedAt is millisecond-grained: a claim within the same millisecond reads as zero.
      if (approval.decidedAt) approvalToClaim.observe(Math.max(0, Date.now() - approval.decidedAt.getTime()) / 1000);
    },
  };
  return { registry, observer };
}

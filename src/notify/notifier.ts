// The daemon's webhook notifier: follows the event log for things a person should hear about,
// writes one delivery per event and target (in the transaction that moves its cursor, so a
// restart neither loses nor duplicates one), and sends due deliveries with retries. With several
// daemons on one PostgreSQL, one follows the log at a time, and each attempt is made by the one
// daemon that claimed the delivery.

import { EventFollower, PassLoop, type FollowedBatch } from '../bus/follower.ts';
import type { DeliveryRecord, EventRecord, NewDelivery, Store } from '../store/index.ts';
import { bodyOf, notificationOf } from './message.ts';
import { isRetryable, RETRY, retryDelayMs, type RetryPolicy } from './retry.ts';
import { sendDelivery } from './send.ts';
import { targetOrigin, type WebhookTarget } from './targets.ts';
import { subjectOf, topicOf } from './topics.ts';

export const CONSUMER = 'webhooks';

export interface NotifierLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

export interface NotifierOptions {
  store: Store;
  targets: readonly WebhookTarget[];
  /** The console's base address for links; null sends none. */
  consoleUrl: string | null;
  /** This daemon's name, as cursor holder and claimant. */
  name: string;
  log: NotifierLog;
  /** Closes approval requests past their expiry (the capability service's), so expiry is told. */
  expireApprovals?: () => Promise<unknown>;
  retry?: RetryPolicy;
  pollMs?: number;
  sendTimeoutMs?: number;
  gapGraceMs?: number;
  /** How long a pass keeps claiming new batches for a target (default DRAIN_BUDGET_MS). */
  drainBudgetMs?: number;
}

const SEND_BATCH = 20;
/** How long a pass keeps claiming new batches for a target before it ends and follows the log again. */
const DRAIN_BUDGET_MS = 1_000;
const EXPIRY_SWEEP_MS = 15_000;

export class Notifier {
  readonly #options: NotifierOptions;
  readonly #follower: EventFollower;
  readonly #targets: Map<string, WebhookTarget>;
  readonly #loop: PassLoop;
  #unsubscribe: () => void = () => {};
  #lastSweep = 0;

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#targets = new Map(options.targets.map((t) => [t.name, t]));
    this.#follower = new EventFollower(options.store, { consumer: CONSUMER, holder: options.name, ...(options.gapGraceMs !== undefined ? { gapGraceMs: options.gapGraceMs } : {}) });
    this.#loop = new PassLoop(() => this.runOnce(), {
      pauseMs: options.pollMs ?? 1_000,
      again: (result) => (result as { more?: boolean }).more === true,
      onError: (error) => options.log.warn({ component: 'webhooks', error: error.message }, 'webhook notifier pass failed; trying again'),
    });
  }

  /** Creates the cursor (at the newest event, for a store that never notified) and starts the loop. */
  async start(): Promise<void> {
    await this.#follower.ensureCursor();
    // Not every event that is told wakes anyone (an approval requested does not): the loop also
    // looks every pollMs.
    this.#unsubscribe = this.#options.store.wakeups.on(() => this.#loop.wake());
    this.#loop.start();
  }

  /** Finishes the pass in progress and lets another daemon follow the log at once. */
  async stop(): Promise<void> {
    this.#unsubscribe();
    await this.#loop.stop();
    await this.#follower.release().catch(() => {});
  }

  /** One pass: closes expired approvals, turns new events into deliveries, sends what is due. */
  /** `more`: a target's drain ran out of time with deliveries still due; the loop goes again at once. */
  async runOnce(): Promise<{ enqueued: number; attempted: number; more?: boolean }> {
    const now = this.#options.store.clock.now().getTime();
    if (this.#options.expireApprovals && now - this.#lastSweep >= EXPIRY_SWEEP_MS) {
      this.#lastSweep = now;
      await this.#options.expireApprovals();
    }
    let enqueued = 0;
    for (let batch = await this.#follower.next(); batch; batch = this.#loop.stopping ? null : await this.#follower.next()) {
      enqueued += await this.#enqueue(batch);
    }
    // Each target is sent to on its own, side by side: a target that stopped answering holds up
    // its own deliveries (a batch waits out the send timeout), never another's. In lock-step
    // batches across targets, a healthy target's deliveries waited for the dead one's timeouts,
    // about backlog / 20 × 10 s. Deliveries of a target no longer configured are drained apart.
    const names = [...this.#targets.keys()];
    const until = performance.now() + (this.#options.drainBudgetMs ?? DRAIN_BUDGET_MS);
    const sent = await Promise.all([...names.map((target) => this.#drain({ target }, until)), this.#drain({ except: names }, until)]);
    const attempted = sent.reduce((a, b) => a + b.attempted, 0);
    return sent.some((s) => s.cut) ? { enqueued, attempted, more: true } : { enqueued, attempted };
  }

  /**
   * Sends the due deliveries of `of`, batch after batch, until none is left, the loop stops, or
   * the pass's time is up (`until`, checked between batches); returns how many. The time bound
   * lets the pass end and follow new events: a target that never answers would otherwise keep
   * its drain going on its own retries, due again (5 s) before a batch ends (10 s), until every
   * delivery spent its attempts, and every other target's new events waited that long.
   */
  async #drain(of: { target: string } | { except: readonly string[] }, until: number): Promise<{ attempted: number; cut: boolean }> {
    let attempted = 0;
    for (;;) {
      const due = await this.#claim(of);
      if (due.length === 0) return { attempted, cut: false };
      await Promise.all(due.map((delivery) => this.#attempt(delivery)));
      attempted += due.length;
      if (this.#loop.stopping) return { attempted, cut: false };
      if (performance.now() >= until) return { attempted, cut: true };
    }
  }

  async #enqueue(batch: FollowedBatch): Promise<number> {
    const { store } = this.#options;
    const deliveries: NewDelivery[] = [];
    const mindNames = new Map<string, string | null>();
    for (const event of batch.events) deliveries.push(...(await this.#deliveriesOf(event, mindNames)));
    if (deliveries.length === 0) {
      await this.#follower.pass(batch);
      return 0;
    }
    try {
      await store.transaction(async (tx) => {
        await tx.webhookDeliveries.enqueue(deliveries);
        // Lost to another daemon meanwhile: nothing of this batch is written; it wrote its own.
        if (!(await this.#follower.advanceIn(tx, batch))) throw new CursorLost();
      });
    } catch (error) {
      this.#follower.committed(null);
      if (error instanceof CursorLost) return 0;
      throw error;
    }
    this.#follower.committed(batch);
    return deliveries.length;
  }

  async #deliveriesOf(event: EventRecord, mindNames: Map<string, string | null>): Promise<NewDelivery[]> {
    const topic = topicOf(event);
    if (topic === null) return [];
    const targets = [...this.#targets.values()].filter((t) => t.topics === null || t.topics.includes(topic));
    if (targets.length === 0) return [];
    const { store } = this.#options;
    const subject = subjectOf(event);
    const approval = subject && 'approvalId' in subject ? await store.approvals.get(subject.approvalId) : undefined;
    const request = subject && 'requestId' in subject ? await store.capabilityRequests.get(subject.requestId) : undefined;
    let mindName: string | null = null;
    if (event.mindId) {
      if (!mindNames.has(event.mindId)) mindNames.set(event.mindId, (await store.minds.get(event.mindId))?.name ?? null);
      mindName = mindNames.get(event.mindId) ?? null;
    }
    const notification = notificationOf({ event, topic, mindName, approval, request, consoleUrl: this.#options.consoleUrl });
    return targets.map((target) => ({ target: target.name, eventId: event.id, eventSeq: event.seq, topic, mindId: event.mindId, body: bodyOf(notification, target.format) }));
  }

  #claim(of: { target: string } | { except: readonly string[] }): Promise<DeliveryRecord[]> {
    const { store, name } = this.#options;
    // The claim outlasts the longest attempt, so nobody else takes a delivery being sent.
    const leaseUntil = new Date(store.clock.now().getTime() + (this.#options.sendTimeoutMs ?? 10_000) + 30_000);
    return store.webhookDeliveries.claimDue(name, leaseUntil, SEND_BATCH, of);
  }

  async #attempt(delivery: DeliveryRecord): Promise<void> {
    const { store, name, log } = this.#options;
    const retry = this.#options.retry ?? RETRY;
    const target = this.#targets.get(delivery.target);
    if (!target) {
      await store.webhookDeliveries.recordAttempt(delivery.id, name, { status: 'failed', responseStatus: null, error: `no target named "${delivery.target}" is configured any more` });
      return;
    }
    const answer = await sendDelivery(target, delivery, store.clock.now(), this.#options.sendTimeoutMs);
    const attempts = delivery.attempts + 1;
    const where = { component: 'webhooks', target: target.name, origin: targetOrigin(target.url), delivery: delivery.id, topic: delivery.topic, attempt: attempts };
    if (answer.error === '') {
      await store.webhookDeliveries.recordAttempt(delivery.id, name, { status: 'delivered', responseStatus: answer.status ?? 0 });
    } else if (isRetryable(answer.status) && attempts < retry.maxAttempts) {
      const nextAttemptAt = new Date(store.clock.now().getTime() + retryDelayMs(attempts, retry));
      await store.webhookDeliveries.recordAttempt(delivery.id, name, { status: 'pending', nextAttemptAt, responseStatus: answer.status, error: answer.error });
      log.info({ ...where, error: answer.error, next_attempt_at: nextAttemptAt.toISOString() }, 'webhook delivery failed; will retry');
    } else {
      await store.webhookDeliveries.recordAttempt(delivery.id, name, { status: 'failed', responseStatus: answer.status, error: answer.error });
      log.warn({ ...where, error: answer.error }, 'webhook delivery given up');
    }
  }
}

class CursorLost extends Error {}

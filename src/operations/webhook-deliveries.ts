// The webhook delivery log, newest first: what the API's /webhook-deliveries and `praxis
// webhooks` show. Reading it is an administrator's on the API (the route's permission, as for
// policy); the CLI is trusted by whoever can open its database.

import type { Principal } from '../access/permissions.ts';
import type { DeliveryStatus } from '../core/vocabulary.ts';
import type { DeliveryRecord, Store } from '../store/index.ts';

export interface DeliveryQuery {
  status?: DeliveryStatus | undefined;
  target?: string | undefined;
  /** Only deliveries older than this one (the page before). */
  before?: string | undefined;
  limit: number;
}

/** The log is not a mind's: every caller who reaches this door sees the same deliveries. */
export async function listWebhookDeliveries(store: Store, _principal: Principal, query: DeliveryQuery): Promise<DeliveryRecord[]> {
  return store.webhookDeliveries.list({
    limit: query.limit,
    ...(query.status ? { status: query.status } : {}),
    ...(query.target ? { target: query.target } : {}),
    ...(query.before ? { before: query.before } : {}),
  });
}

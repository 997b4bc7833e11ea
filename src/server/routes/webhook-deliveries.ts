// The webhook delivery log, for administrators (docs/notifications.md): what was sent where,
// how often it was tried and what the target answered. Targets appear by name only; their URLs
// and secrets stay in the daemon's configuration.

import { Type } from 'typebox';
import { DELIVERY_STATUSES } from '../../core/vocabulary.ts';
import type { Services } from '../../operations/services.ts';
import { listWebhookDeliveries, type DeliveryRecord } from '../../operations/index.ts';
import { principal } from '../auth.ts';
import { Id, oneOf, strictObject } from '../schemas.ts';
import type { Api } from './context.ts';

const MAX_DELIVERIES = 200;

function view(d: DeliveryRecord) {
  return {
    id: d.id,
    target: d.target,
    topic: d.topic,
    event_id: d.eventId,
    event_seq: d.eventSeq,
    mind_id: d.mindId,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    response_status: d.responseStatus,
    last_error: d.lastError,
    sent_by: d.sentBy,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    body: JSON.parse(d.body) as unknown,
  };
}

export function webhookDeliveryRoutes(api: Api, ctx: Services): void {
  api.get(
    '/webhook-deliveries',
    {
      config: { permission: 'administer' },
      schema: {
        tags: ['webhooks'],
        summary: 'the webhook delivery log, newest first',
        querystring: strictObject({
          status: Type.Optional(oneOf(DELIVERY_STATUSES)),
          target: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
          before: Type.Optional(Id),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DELIVERIES, description: `1 to ${MAX_DELIVERIES} (default 50)` })),
        }),
      },
    },
    async (request) => {
      const { status, target, before, limit } = request.query;
      const deliveries = await listWebhookDeliveries(ctx.store, principal(request), { limit: limit ?? 50, status, target, before });
      return { deliveries: deliveries.map(view) };
    },
  );
}

// The body of a notification, in Praxis' own shape or as a Slack message. Pure: everything it
// says comes from the event, the records it is about and the console's address.

import type { ApprovalRecord, CapabilityRequestRecord, EventRecord } from '../store/index.ts';
import type { Topic } from './topics.ts';

/** What a notification is about, read by the caller from the store. */
export interface NotificationContext {
  event: EventRecord;
  topic: Topic;
  mindName: string | null;
  approval?: ApprovalRecord | undefined;
  request?: CapabilityRequestRecord | undefined;
  /** The console's public base address, e.g. https://praxis.example.org; null gives no links. */
  consoleUrl: string | null;
}

export type MessageFormat = 'praxis' | 'slack';

export interface Notification {
  topic: Topic;
  /** One sentence for a person. */
  text: string;
  link: string | null;
  payload: Record<string, unknown>;
}

export function notificationOf(ctx: NotificationContext): Notification {
  const { event, topic, approval, request } = ctx;
  const mind = ctx.mindName ?? event.mindId ?? 'a mind';
  const data = event.data;
  const operator = typeof data.operator === 'string' ? data.operator : null;
  const action = approval ? `${approval.capability} on ${approval.target}` : `${String(data.capability ?? '?')} on ${String(data.target ?? data.target_pattern ?? '?')}`;
  const access = request ? `${request.capability} on ${request.targetPattern}` : `${String(data.capability ?? '?')} on ${String(data.target_pattern ?? '?')}`;
  let text: string;
  switch (topic) {
    case 'approval.requested':
      text = `${mind} asks for approval: ${action}${approval ? `, until ${approval.expiresAt.toISOString()}` : ''}.`;
      break;
    case 'approval.approved':
      text = data.final === false ? `${operator ?? 'An operator'} approved ${action} for ${mind}; one more approval is needed.` : `${operator ?? 'An operator'} approved ${action} for ${mind}.`;
      break;
    case 'approval.denied':
      text = `${operator ?? 'An operator'} denied ${action} for ${mind}.`;
      break;
    case 'approval.expired':
      text = `The approval of ${action} for ${mind} expired before anyone decided.`;
      break;
    case 'approval.withdrawn':
      text = `The approval request for ${action} (${mind}) was withdrawn.`;
      break;
    case 'capability_request.opened':
      text = `${mind} asks for access to ${access}${request?.reason ? `: ${request.reason}` : ''}.`;
      break;
    case 'capability_request.granted': {
      // The grant, not the request: an operator may grant a narrower target than was asked for.
      const granted = typeof data.target_pattern === 'string' ? `${request?.capability ?? String(data.capability ?? '?')} on ${data.target_pattern}` : access;
      text = `${operator ?? 'An operator'} granted ${mind} access to ${granted}.`;
      break;
    }
    case 'capability_request.denied':
      text = `${operator ?? 'An operator'} denied ${mind} access to ${access}.`;
      break;
    case 'capability_request.withdrawn':
      text = `${mind}'s request for access to ${access} was withdrawn.`;
      break;
    case 'intention.escalated':
      text = `${mind} escalated an intention to an operator (${String(data.reason ?? 'no reason given')}).`;
      break;
    case 'intention.blocked':
      text = `An intention of ${mind} is blocked (${String(data.reason ?? 'no reason given')}) and waits for an operator.`;
      break;
    case 'action.outcome_unknown':
      text = `The approved ${action} for ${mind} has an unknown outcome: its executor stopped mid-act. Nothing will repeat it; check the host.`;
      break;
  }
  const link = linkOf(ctx);
  const payload: Record<string, unknown> = {
    topic,
    text,
    link,
    event: { id: event.id, seq: event.seq, type: event.type, at: event.createdAt.toISOString(), data: event.data },
    mind: { id: event.mindId, name: ctx.mindName },
    intention_id: event.intentionId,
    plan_id: event.planId ?? (typeof data.plan_id === 'string' ? data.plan_id : null),
    step_id: event.stepId,
  };
  if (approval) {
    payload.approval = {
      id: approval.id,
      status: approval.status,
      capability: approval.capability,
      target: approval.target,
      params: approval.params,
      origin: approval.origin,
      approvers_required: approval.approversRequired,
      explanation: approval.explanation,
      expires_at: approval.expiresAt.toISOString(),
    };
  }
  if (request) {
    payload.capability_request = {
      id: request.id,
      status: request.status,
      capability: request.capability,
      target_pattern: request.targetPattern,
      duration_seconds: request.durationSeconds,
      max_operations: request.maxOperations,
      reason: request.reason,
      risk: request.risk,
      mitigation: request.mitigation,
      fallback: request.fallback,
    };
  }
  return { topic, text, link, payload };
}

/** The console page where the person acts: the approval centre, or the plan for an intention. */
function linkOf(ctx: NotificationContext): string | null {
  if (ctx.consoleUrl === null) return null;
  const base = ctx.consoleUrl.replace(/\/+$/, '');
  if (ctx.approval) return `${base}/#/approvals?approval=${encodeURIComponent(ctx.approval.id)}`;
  if (ctx.request) return `${base}/#/approvals?request=${encodeURIComponent(ctx.request.id)}`;
  const planId = ctx.event.planId ?? (typeof ctx.event.data.plan_id === 'string' ? ctx.event.data.plan_id : null);
  if (planId) return `${base}/#/plans/${encodeURIComponent(planId)}`;
  if (ctx.event.intentionId) return `${base}/#/intentions/${encodeURIComponent(ctx.event.intentionId)}/timeline`;
  return `${base}/`;
}

/** The exact text sent (and signed) for a target of this format. */
export function bodyOf(notification: Notification, format: MessageFormat): string {
  if (format === 'praxis') return JSON.stringify(notification.payload);
  // Slack's incoming webhooks (and Mattermost's, Rocket.Chat's) take `text`, shown in
  // notifications, and `blocks` for the message itself.
  const escaped = escapeSlack(notification.text);
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: escaped } }];
  if (notification.link) {
    blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Praxis' }, url: notification.link }] });
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `\`${notification.topic}\`` }] });
  return JSON.stringify({ text: notification.link ? `${escaped} <${notification.link}|Open in Praxis>` : escaped, blocks });
}

/** Slack's three control characters in text. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

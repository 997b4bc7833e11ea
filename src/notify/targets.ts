// Webhook targets from the daemon's configuration: a list in the file (`webhooks`), and the first
// target's URL, secret and format from PRAXIS_WEBHOOK_URL, PRAXIS_WEBHOOK_SECRET and
// PRAXIS_WEBHOOK_FORMAT. A target is set by an administrator, so it may be any address the
// daemon can reach, the operator's own network included (unlike the read-only web capabilities,
// which a mind aims). Pure: every problem is returned, each naming where the value came from.

import type { Problem } from '../core/errors.ts';
import type { MessageFormat } from './message.ts';
import { TOPICS, type Topic } from './topics.ts';

export interface WebhookTarget {
  /** Names the target in the delivery log; its URL and secret never leave the configuration. */
  name: string;
  url: string;
  secret: string;
  format: MessageFormat;
  /** Null tells every topic. */
  topics: Topic[] | null;
}

export interface NotificationSettings {
  targets: WebhookTarget[];
  /** The console's address as people reach it, for links; null: the address the daemon listens on. */
  publicUrl: string | null;
}

export const NOTIFICATION_FILE_KEYS = ['webhooks', 'publicUrl'] as const;
export const MIN_SECRET_LENGTH = 16;
const NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const FORMATS: readonly MessageFormat[] = ['praxis', 'slack'];
const TARGET_KEYS = ['name', 'url', 'secret', 'format', 'topics'];

/** The scheme, host and port of a target, which is all a log line or the API shows of it. */
export function targetOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

export function resolveNotifications(
  env: Record<string, string | undefined>,
  fileValues: Record<string, unknown>,
  filePath: (key: string) => string,
): { settings: NotificationSettings; problems: Problem[] } {
  const problems: Problem[] = [];
  const fromFile = fileValues.webhooks;
  let entries: unknown[] = [];
  if (fromFile !== undefined && fromFile !== null) {
    if (Array.isArray(fromFile)) entries = fromFile;
    else problems.push({ code: 'invalid_webhooks', path: filePath('webhooks'), message: 'webhooks must be a list of targets, each with url and secret' });
  }
  const targets: WebhookTarget[] = [];
  entries.forEach((entry, i) => {
    const at = (key?: string) => `${filePath('webhooks')}[${i}]${key ? `.${key}` : ''}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push({ code: 'invalid_webhook', path: at(), message: 'a webhook target is a mapping with url and secret' });
      return;
    }
    const values = entry as Record<string, unknown>;
    for (const key of Object.keys(values)) {
      if (!TARGET_KEYS.includes(key)) problems.push({ code: 'unknown_setting', path: at(key), message: `unknown webhook setting "${key}"; known: ${TARGET_KEYS.join(', ')}` });
    }
    const target = checkTarget(
      {
        name: { value: values.name ?? (i === 0 ? 'default' : `webhook-${i + 1}`), from: at('name') },
        url: { value: values.url, from: at('url') },
        secret: { value: values.secret, from: at('secret') },
        format: { value: values.format ?? 'praxis', from: at('format') },
        topics: { value: values.topics ?? null, from: at('topics') },
      },
      i === 0 ? env : {},
      problems,
    );
    if (target) targets.push(target);
  });
  if (entries.length === 0 && env.PRAXIS_WEBHOOK_URL) {
    const target = checkTarget(
      {
        name: { value: 'default', from: 'PRAXIS_WEBHOOK_URL' },
        url: { value: undefined, from: 'PRAXIS_WEBHOOK_URL' },
        secret: { value: undefined, from: 'PRAXIS_WEBHOOK_SECRET' },
        format: { value: 'praxis', from: 'PRAXIS_WEBHOOK_FORMAT' },
        topics: { value: null, from: 'topics' },
      },
      env,
      problems,
    );
    if (target) targets.push(target);
  } else if (entries.length === 0 && (env.PRAXIS_WEBHOOK_SECRET || env.PRAXIS_WEBHOOK_FORMAT)) {
    problems.push({ code: 'invalid_webhook', path: 'PRAXIS_WEBHOOK_URL', message: 'a webhook secret or format is set but no webhook URL: set PRAXIS_WEBHOOK_URL too' });
  }
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.name)) problems.push({ code: 'duplicate_webhook', path: filePath('webhooks'), message: `two webhook targets are named "${target.name}"; give each its own name` });
    seen.add(target.name);
  }

  let publicUrl: string | null = null;
  const publicValue = env.PRAXIS_PUBLIC_URL
    ? { value: env.PRAXIS_PUBLIC_URL, from: 'PRAXIS_PUBLIC_URL' }
    : 'publicUrl' in fileValues
      ? { value: fileValues.publicUrl, from: filePath('publicUrl') }
      : null;
  if (publicValue) {
    if (isHttpUrl(publicValue.value)) publicUrl = publicValue.value.replace(/\/+$/, '');
    else problems.push({ code: 'invalid_public_url', path: publicValue.from, message: `${show(publicValue.value)} is not an http:// or https:// address of the console` });
  }
  return { settings: { targets, publicUrl }, problems };
}

type Sourced = { value: unknown; from: string };

/** One target's values, the environment overriding the first target's url, secret and format. */
function checkTarget(raw: { name: Sourced; url: Sourced; secret: Sourced; format: Sourced; topics: Sourced }, env: Record<string, string | undefined>, problems: Problem[]): WebhookTarget | null {
  const url = env.PRAXIS_WEBHOOK_URL ? { value: env.PRAXIS_WEBHOOK_URL, from: 'PRAXIS_WEBHOOK_URL' } : raw.url;
  const secret = env.PRAXIS_WEBHOOK_SECRET ? { value: env.PRAXIS_WEBHOOK_SECRET, from: 'PRAXIS_WEBHOOK_SECRET' } : raw.secret;
  const format = env.PRAXIS_WEBHOOK_FORMAT ? { value: env.PRAXIS_WEBHOOK_FORMAT, from: 'PRAXIS_WEBHOOK_FORMAT' } : raw.format;
  const before = problems.length;
  if (typeof raw.name.value !== 'string' || !NAME.test(raw.name.value)) {
    problems.push({ code: 'invalid_webhook_name', path: raw.name.from, message: `${show(raw.name.value)} is not a target name: lower-case letters, digits, - and _, up to 40` });
  }
  if (!isHttpUrl(url.value)) problems.push({ code: 'invalid_webhook_url', path: url.from, message: `${showUrl(url.value)} is not an http:// or https:// address` });
  else if (hasCredentials(url.value)) {
    // fetch refuses such a URL outright, so every delivery would fail after its retries.
    problems.push({
      code: 'invalid_webhook_url',
      path: url.from,
      message: `${showUrl(url.value)} carries a user name or password, which is never sent: deliveries are signed with the target's secret`,
    });
  }
  // The secret's value is never repeated in a message.
  if (typeof secret.value !== 'string' || secret.value.length < MIN_SECRET_LENGTH) {
    problems.push({ code: 'invalid_webhook_secret', path: secret.from, message: `every webhook target needs a secret of at least ${MIN_SECRET_LENGTH} characters to sign its deliveries with` });
  }
  if (!FORMATS.includes(format.value as MessageFormat))
    problems.push({ code: 'invalid_webhook_format', path: format.from, message: `${show(format.value)} is not a format: use ${FORMATS.join(' or ')}` });
  let topics: Topic[] | null = null;
  if (raw.topics.value !== null) {
    const list = raw.topics.value;
    const bad = Array.isArray(list) ? list.filter((t) => !(TOPICS as readonly unknown[]).includes(t)) : [list];
    if (bad.length > 0 || (Array.isArray(list) && list.length === 0)) {
      problems.push({ code: 'invalid_webhook_topics', path: raw.topics.from, message: `${bad.map(show).join(', ') || 'an empty list'}: give a list of topics from ${TOPICS.join(', ')}` });
    } else topics = list as Topic[];
  }
  if (problems.length > before) return null;
  return { name: raw.name.value as string, url: url.value as string, secret: secret.value as string, format: format.value as MessageFormat, topics };
}

function hasCredentials(value: string): boolean {
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A URL in a message shows only its origin: paths of chat webhooks are credentials. */
function showUrl(value: unknown): string {
  if (typeof value !== 'string') return show(value);
  return isHttpUrl(value) ? `"${targetOrigin(value)}/…"` : `a value of ${(value as string).length} characters`;
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
}

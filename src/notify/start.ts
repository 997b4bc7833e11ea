// The daemon's webhook notifier, started when targets are configured (src/daemon/serve.ts).

import type { CapabilityService } from '../capabilities/service.ts';
import type { Logger } from 'pino';
import type { Store } from '../store/index.ts';
import { Notifier } from './notifier.ts';
import { targetOrigin, type NotificationSettings } from './targets.ts';

export async function startNotifications(
  store: Store,
  capabilities: CapabilityService,
  config: { notifications?: NotificationSettings | undefined },
  daemon: { name: string; url: string; logger: Logger },
): Promise<Notifier | null> {
  const settings = config.notifications;
  if (!settings || settings.targets.length === 0) return null;
  const log = daemon.logger.child({ component: 'webhooks' });
  const notifier = new Notifier({
    store,
    targets: settings.targets,
    consoleUrl: settings.publicUrl ?? daemon.url,
    name: daemon.name,
    log,
    expireApprovals: () => capabilities.expireApprovals(),
  });
  await notifier.start();
  // Names and origins only: a chat webhook's path is its credential.
  log.info({ event: 'webhooks_ready', targets: settings.targets.map((t) => ({ name: t.name, origin: targetOrigin(t.url), format: t.format })) }, 'webhook notifications on');
  return notifier;
}

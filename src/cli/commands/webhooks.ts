// `praxis webhooks`: the webhook delivery log, newest first (docs/notifications.md). It reads the
// store directly, so whoever holds the database (an administrator) sees what was sent, where, how
// often and what the target answered; targets appear by name only.

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../core/vocabulary.ts';
import { action, localPrincipal, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { clip, formatTable } from '../report.ts';
import { parseLimit } from './plans.ts';

interface WebhookOptions extends StoreOptions {
  status?: string;
  target?: string;
  limit?: string;
}

export function webhooksCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('webhooks')))
    .description('the webhook delivery log, newest first')
    .option('--status <status>', `only deliveries in this status (${DELIVERY_STATUSES.join(', ')})`)
    .option('--target <name>', 'only deliveries to this target')
    .option('--limit <n>', 'at most this many (default 50)')
    .action(
      action(async (options: WebhookOptions) => {
        const problems: Problem[] = [];
        if (options.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(options.status)) {
          problems.push({ code: 'invalid_status', path: '--status', message: `"${options.status}" is not a delivery status: use one of ${DELIVERY_STATUSES.join(', ')}` });
        }
        const limit = parseLimit(options.limit, 50);
        if (typeof limit !== 'number') problems.push(limit);
        if (problems.length > 0) throw new InputError(problems);
        await useStore(options, async (store) => {
          const { listWebhookDeliveries } = await import('../../operations/webhook-deliveries.ts');
          const deliveries = await listWebhookDeliveries(store, localPrincipal('cli'), { limit: limit as number, status: options.status as DeliveryStatus | undefined, target: options.target });
          if (options.json) return printJson(deliveries.map(({ body, ...rest }) => ({ ...rest, body: JSON.parse(body) as unknown })));
          if (deliveries.length === 0) return void process.stdout.write('no deliveries\n');
          const rows = deliveries.map((d) => [
            d.createdAt.toISOString(),
            d.target,
            d.topic,
            d.status,
            String(d.attempts),
            d.responseStatus === null ? '' : String(d.responseStatus),
            clip(d.status === 'pending' ? `next at ${d.nextAttemptAt.toISOString()}; ${d.lastError}` : d.lastError, 80),
          ]);
          process.stdout.write(formatTable(['CREATED', 'TARGET', 'TOPIC', 'STATUS', 'TRIES', 'HTTP', 'LAST ERROR'], rows));
        });
      }),
    );
}

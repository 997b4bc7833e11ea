// `praxis token`: access tokens for the daemon's HTTP API, console and MCP server. The secret is
// printed once, at creation; the store keeps only its hash, so a lost token is revoked and
// replaced, never recovered.

import type { Command } from 'commander';
import { issueToken, listTokens, revokeToken, tokenShapeProblems } from '../../access/tokens.ts';
import { InputError } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import type { AccessTokenRecord } from '../../operations/records.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, findMind, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { formatTable } from '../report.ts';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `90m`, `12h`, `30d`, `2w` (or a sum such as `1d12h`) as seconds; null when it is not one. */
export function parseDuration(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (!/^(\d{1,6}[smhdw])+$/.test(trimmed)) return null;
  let seconds = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) seconds += Number(n) * UNIT_SECONDS[unit!]!;
  return seconds > 0 && seconds <= MAX_TOKEN_LIFETIME_SECONDS ? seconds : null;
}

/** Ten years: a longer lifetime is a typo (999999w is past year 9999), and "until revoked" is the default. */
export const MAX_TOKEN_LIFETIME_SECONDS = 10 * 365 * 86_400;

interface CreateOptions extends StoreOptions {
  operator: string;
  role: string;
  mind?: string;
  label?: string;
  expiresIn?: string;
  as?: string;
}

function tokenState(record: AccessTokenRecord, now: Date): string {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function tokenCommand(program: Command): void {
  const token = program.command('token').description('access tokens for the HTTP API, console and MCP server');

  withJsonOption(withDbOption(token.command('create')))
    .description('issue a token; the secret is printed once and never stored')
    .requiredOption('--operator <name>', 'who the token speaks for (recorded on every decision made with it)')
    .requiredOption('--role <role>', 'viewer, agent, operator or admin')
    .option('--mind <name>', 'the one mind an agent token speaks for (agents only)')
    .option('--label <text>', 'what the token is for')
    .option('--expires-in <duration>', 'lifetime such as 90m, 12h, 30d (default: until revoked)')
    .option('--as <operator>', 'who issues it, recorded in the audit trail (default: the OS user name)')
    .action(
      action(async (options: CreateOptions) => {
        const issuedBy = cliOperator(options.as);
        let seconds: number | null = null;
        if (options.expiresIn !== undefined) {
          seconds = parseDuration(options.expiresIn);
          if (seconds === null)
            throw new InputError([{ code: 'invalid_duration', path: '--expires-in', message: `"${options.expiresIn}" is not a duration such as 90m, 12h or 30d, of at most 10 years` }]);
        }
        // Checked before the store is opened: a refused token creates no store.
        const shape = tokenShapeProblems({ operator: options.operator, role: options.role, boundToMind: options.mind !== undefined });
        if (shape.length > 0) throw new InputError(shape.map((p) => ({ ...p, path: `--${p.path}` })));
        // The first admin token is how a new install starts (README): it may create the store;
        // one bound to a mind needs the mind, and so the store, to exist.
        return useStore(
          options,
          async (store) => {
            const mindId = options.mind ? (await findMind(store, options.mind)).id : null;
            const expiresAt = seconds === null ? null : new Date(store.clock.now().getTime() + seconds * 1000);
            const issued = await issueToken(store, {
              operator: options.operator,
              role: options.role,
              mindId,
              ...(options.label !== undefined ? { label: options.label } : {}),
              expiresAt,
              issuedBy,
            });
            if (options.json) return printJson({ token: issued.token, ...issued.record });
            process.stdout.write(`${issued.token}\n`);
            process.stderr.write(
              `token ${issued.record.id}: ${issued.record.role} for ${issued.record.operator}` +
                `${issued.record.expiresAt ? `, expires ${issued.record.expiresAt.toISOString()}` : ''}. ` +
                'The secret above is shown only now; send it as "Authorization: Bearer <token>".\n',
            );
            return EXIT.ok;
          },
          { create: options.mind === undefined },
        );
      }),
    );

  withJsonOption(withDbOption(token.command('list')))
    .description('list tokens (never their secrets)')
    .action(
      action(async (options: StoreOptions) => {
        await useStore(options, async (store) => {
          const tokens = await listTokens(store);
          if (options.json) return printJson(tokens);
          if (tokens.length === 0) return void process.stdout.write('no tokens\n');
          const now = store.clock.now();
          const rows = tokens.map((t) => [t.id, t.operator, t.role, t.mindId ?? '', tokenState(t, now), t.expiresAt?.toISOString() ?? 'never', t.label]);
          process.stdout.write(formatTable(['ID', 'OPERATOR', 'ROLE', 'MIND', 'STATE', 'EXPIRES', 'LABEL'], rows));
        });
      }),
    );

  withJsonOption(withDbOption(token.command('revoke').argument('<token-id>')))
    .description('revoke a token at once; requests bearing it are refused from then on')
    .option('--as <operator>', 'who revokes it, recorded in the audit trail (default: the OS user name)')
    .action(
      action(async (id: string, options: StoreOptions & { as?: string }) => {
        if (!isId(id)) throw new InputError([{ code: 'invalid_id', path: 'token-id', message: `"${id}" is not a token id (see praxis token list)` }]);
        const revokedBy = cliOperator(options.as);
        return useStore(options, async (store) => {
          const answer = await revokeToken(store, id, revokedBy);
          if ('revoked' in answer) {
            if (options.json) printJson(answer.revoked);
            else process.stdout.write(`revoked token ${id} (${answer.revoked.role} for ${answer.revoked.operator})\n`);
            return EXIT.ok;
          }
          if (options.json) printJson({ ok: false, errors: [{ code: answer.refused, message: answer.message, path: 'token-id' }] });
          else process.stderr.write(`refused (${answer.refused}): ${answer.message}\n`);
          return answer.refused === 'already_revoked' ? EXIT.refused : EXIT.usage;
        });
      }),
    );
}

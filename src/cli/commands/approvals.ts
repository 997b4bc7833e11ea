// Local operator decisions, through the operations the API calls (src/operations/decisions.ts,
// amendments.ts) with a local caller: whoever can run the CLI with this database is trusted, and
// `--as` names the operator recorded on the decision. (The HTTP API binds the operator to a token
// instead.)

import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { EXIT } from '../exit-codes.ts';
import { action, localPrincipal, onMindOption, parseJsonOption, printJson, useServices, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

interface DecisionOptions extends StoreOptions {
  as: string;
  note?: string;
}

function requireId(value: string, what: string): void {
  if (!isId(value)) throw new InputError([{ code: 'invalid_id', path: what, message: `"${value}" is not an id` }]);
}

/** The grant operation's scope fields, and the options that carry them here. */
const GRANT_OPTIONS: Readonly<Record<string, string>> = { target_pattern: '--target', duration_seconds: '--minutes', uses: '--operations' };

/** A count given to an option: decimal digits only, at least 1 (pure). */
function positiveWhole(text: string, problem: Pick<Problem, 'code' | 'path'>, what: string): number | Problem {
  const n = /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  return Number.isInteger(n) && n >= 1 ? n : { ...problem, message: `"${text}" is not a number of ${what}: give a whole number from 1` };
}

/**
 * The narrowing `praxis grant` was given (pure, throws an InputError). An option given empty
 * is refused, not read as absent: from a script with an unset variable, that would grant the
 * whole of what was asked.
 */
function grantScope(options: { target?: string | undefined; minutes?: string | undefined; operations?: string | undefined }): {
  target_pattern?: string;
  duration_seconds?: number;
  uses?: number;
} {
  const problems: Problem[] = [];
  const scope: { target_pattern?: string; duration_seconds?: number; uses?: number } = {};
  if (options.target !== undefined) {
    if (options.target.trim() === '')
      problems.push({ code: 'invalid_target_pattern', path: '--target', message: 'the target pattern is empty: give one, or leave --target out to keep the requested one' });
    else scope.target_pattern = options.target;
  }
  if (options.minutes !== undefined) {
    const minutes = positiveWhole(options.minutes, { code: 'invalid_duration', path: '--minutes' }, 'minutes');
    if (typeof minutes === 'number') scope.duration_seconds = minutes * 60;
    else problems.push(minutes);
  }
  if (options.operations !== undefined) {
    const uses = positiveWhole(options.operations, { code: 'invalid_max_operations', path: '--operations' }, 'operations');
    if (typeof uses === 'number') scope.uses = uses;
    else problems.push(uses);
  }
  if (problems.length > 0) throw new InputError(problems);
  return scope;
}

function decision(command: Command): Command {
  return withJsonOption(withDbOption(command)).requiredOption('--as <operator>', 'the operator deciding (recorded on the decision)').option('--note <text>', 'a note kept with the decision');
}

export function approvalCommands(program: Command): void {
  withJsonOption(withDbOption(program.command('approvals')))
    .description('list approval requests (pending by default), grouped by batch')
    .option('--mind <name>', 'only this mind')
    .option('--all', 'every status, not only pending')
    .action(
      action(async (options: StoreOptions & { mind?: string; all?: boolean }) => {
        const { approvalCentre } = await import('../../operations/decisions.ts');
        await useServices(options, async ({ store, capabilities }) => {
          // The approvals centre, as the API's: pending requests by batch, and with --all the recently decided ones too.
          const centre = await approvalCentre(store, capabilities, localPrincipal('cli'), { mind: options.mind }).catch(onMindOption);
          const approvals = [...centre.groups.flatMap((g) => g.items), ...(options.all ? centre.history : [])];
          if (options.json) return printJson(approvals);
          let batch: string | undefined;
          for (const a of approvals) {
            if (a.batchKey !== batch) {
              batch = a.batchKey;
              process.stdout.write(`batch ${batch || '(none)'}\n`);
            }
            const eyes = a.approversRequired > 1 ? ` ${a.decisions.filter((d) => d.decision === 'approve').length}/${a.approversRequired} approvals` : '';
            process.stdout.write(`  ${a.id}  ${a.status.padEnd(9)} ${a.capability} ${a.target}${eyes}  expires ${a.expiresAt.toISOString()}\n`);
            const why = (a.explanation as { why?: unknown }).why;
            if (typeof why === 'string' && why) process.stdout.write(`      why: ${why}\n`);
          }
          if (approvals.length === 0) process.stdout.write('no approval requests\n');
        });
      }),
    );

  decision(program.command('approve').argument('<approval-id>'))
    .description("approve a request; the exact stored action then runs in an executor serving the mind's host (praxis serve)")
    .action(
      action(async (id: string, options: DecisionOptions) => {
        requireId(id, 'approval-id');
        const { decideApproval } = await import('../../operations/decisions.ts');
        return useServices(options, async ({ store, capabilities }) => {
          // The operation keeps four eyes (names compared normalised, src/core/operator.ts) and
          // refuses with the code the API answers; action() prints it with the code's exit.
          const { outcome: answer } = await decideApproval(store, capabilities, localPrincipal(options.as), id, 'approve', options.note);
          if (options.json) printJson(answer);
          else if (answer.status === 'approved') process.stdout.write(`approved ${id}; the action runs in the executor serving the mind's host (praxis serve), not here\n`);
          else if (answer.status === 'awaiting_second_approver') process.stdout.write(`approval ${answer.approvals}/${answer.required} recorded; another operator must approve\n`);
          return EXIT.ok;
        });
      }),
    );

  decision(program.command('author').argument('<approval-id>').argument('<author>', 'the operator who authored the action'))
    .description('name the author of a request raised without one, so it can be approved; whoever names it (--as) may not approve it')
    .action(
      action(async (id: string, author: string, options: DecisionOptions) => {
        requireId(id, 'approval-id');
        const { nameApprovalAuthor } = await import('../../operations/decisions.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const { outcome: answer } = await nameApprovalAuthor(store, capabilities, localPrincipal(options.as), id, author, options.note);
          if (options.json) printJson(answer);
          else process.stdout.write(`${answer.author} is the author of ${id}; an operator other than ${answer.author} and ${options.as.trim()} must approve it\n`);
          return EXIT.ok;
        });
      }),
    );

  const approval = program.command('approval').description('act on one approval request');
  withJsonOption(withDbOption(approval.command('amend').argument('<approval-id>')))
    .description("change a pending request's parameters (and so its target) before approving it; whoever amends (--as) becomes an author and may not approve it")
    .requiredOption('--params <json>', "the new parameters, whole, as a JSON object (the capability's schema applies)")
    .option('--target <target>', 'the target the new parameters must imply (refused when they imply another)')
    .option('--reason <text>', 'why the action was amended (shown to the approver)')
    .requiredOption('--as <operator>', 'the operator amending (recorded on the amendment)')
    .action(
      action(async (id: string, options: StoreOptions & { params: string; target?: string; reason?: string; as: string }) => {
        requireId(id, 'approval-id');
        const params = parseJsonOption(options.params, '--params');
        const { amendApproval } = await import('../../operations/amendments.ts');
        return useServices(options, async ({ store, capabilities }) => {
          // Refusals are the API's, with the catalogue's exit (action() prints them).
          const input = { params, ...(options.target !== undefined ? { target: options.target } : {}), ...(options.reason !== undefined ? { reason: options.reason } : {}) };
          const { approval: amended, outcome } = await amendApproval(store, capabilities, localPrincipal(options.as), id, input);
          if (options.json) printJson(outcome);
          else {
            process.stdout.write(`amended ${id}: ${amended.capability} on ${amended.target} ${JSON.stringify(amended.params)}\n`);
            process.stdout.write(
              `an operator other than its authors (${[amended.authoredBy, outcome.amendedBy].filter(Boolean).join(', ')}) must approve it; ${outcome.approversRequired} approval${outcome.approversRequired > 1 ? 's' : ''} needed\n`,
            );
          }
          return EXIT.ok;
        });
      }),
    );

  decision(program.command('deny').argument('<approval-id>'))
    .description('deny a request')
    .action(
      action(async (id: string, options: DecisionOptions) => {
        requireId(id, 'approval-id');
        const { decideApproval } = await import('../../operations/decisions.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const { outcome: answer } = await decideApproval(store, capabilities, localPrincipal(options.as), id, 'deny', options.note);
          if (options.json) printJson(answer);
          else process.stdout.write(`denied ${id}\n`);
          return EXIT.ok;
        });
      }),
    );

  withJsonOption(withDbOption(program.command('requests')))
    .description('list open capability requests')
    .option('--mind <name>', 'only this mind')
    .action(
      action(async (options: StoreOptions & { mind?: string }) => {
        const { requestCentre } = await import('../../operations/decisions.ts');
        await useStore(options, async (store) => {
          const requests = (await requestCentre(store, localPrincipal('cli'), { mind: options.mind }).catch(onMindOption)).groups.flatMap((g) => g.items);
          if (options.json) return printJson(requests);
          for (const r of requests) {
            process.stdout.write(`  ${r.id}  ${r.capability} ${r.targetPattern}  ${r.maxOperations} ops / ${r.durationSeconds}s\n`);
            process.stdout.write(`      reason: ${r.reason}; risk: ${r.risk}; mitigation: ${r.mitigation}; fallback: ${r.fallback}\n`);
          }
          if (requests.length === 0) process.stdout.write('no open capability requests\n');
        });
      }),
    );

  decision(program.command('grant').argument('<request-id>'))
    .description('grant a capability request, optionally narrower than asked')
    .option('--target <pattern>', 'narrower target pattern (never wider than requested)')
    .option('--minutes <n>', 'shorter duration in minutes (never longer than requested)')
    .option('--operations <n>', 'lower operation cap')
    .action(
      action(async (id: string, options: DecisionOptions & { target?: string; minutes?: string; operations?: string }) => {
        requireId(id, 'request-id');
        const scope = grantScope(options);
        const { grantRequest } = await import('../../operations/decisions.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const { grant } = await grantRequest(store, capabilities, localPrincipal(options.as), id, scope).catch((error: unknown) => {
            // The scope the operation names, as the option that carried it.
            if (error instanceof InputError) throw new InputError(error.problems.map((p) => ({ ...p, path: GRANT_OPTIONS[p.path] ?? p.path })));
            throw error;
          });
          if (options.json) printJson(grant);
          else process.stdout.write(`granted: grant ${grant.id}, ${grant.operationsLeft} operations until ${grant.expiresAt.toISOString()}\n`);
          return EXIT.ok;
        });
      }),
    );

  decision(program.command('revoke').argument('<grant-id>'))
    .description('revoke a grant')
    .action(
      action(async (id: string, options: DecisionOptions) => {
        requireId(id, 'grant-id');
        const { revokeGrant } = await import('../../operations/decisions.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const { grant } = await revokeGrant(store, capabilities, localPrincipal(options.as), id);
          if (options.json) printJson(grant);
          else process.stdout.write(`revoked ${grant.id}\n`);
          return EXIT.ok;
        });
      }),
    );
}

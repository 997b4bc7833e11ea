import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/plan.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, localPrincipal, parseJsonOption, printJson, useServices, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { describeIssue } from '../report.ts';

interface IntendOptions extends StoreOptions {
  mind: string;
  capability?: string;
  params?: string;
  requireApproval?: boolean;
  as?: string;
}

/** The option that carried what the operation calls `mind` or `means.…`. */
function optionPath(path: string): string {
  if (path === 'mind') return '--mind';
  if (path === 'means.capability') return '--capability';
  if (path.startsWith('means.params')) return `--params${path.slice('means.params'.length)}`;
  return path;
}

export function intendCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('intend')))
    .description('form an intention from an objective or a means, and plan it')
    .argument('[objective]', 'what to bring about, e.g. "investigate nginx.service"')
    .requiredOption('--mind <name>', 'the mind that intends')
    .option('--capability <name>', 'a concrete means: the capability to use')
    .option('--params <json>', 'parameters of the means, as a JSON object', '{}')
    .option('--require-approval', 'every writing action for this intention asks an operator')
    .option('--as <operator>', "the intention's author, who cannot approve its actions (default: the OS user name)")
    .action(
      action(async (objective: string | undefined, options: IntendOptions) => {
        let means = null;
        if (options.capability) {
          const params = parseJsonOption(options.params ?? '{}', '--params');
          means = { capability: options.capability, params: params as JsonObject };
        }
        if (!objective && !means) throw new InputError([{ code: 'missing_objective', path: 'objective', message: 'give an objective, or a means with --capability' }]);
        const author = cliOperator(options.as);
        const [{ formProposedIntention, planFormedIntentionInDetail }, { localPlanningProblems }] = await Promise.all([import('../../operations/intentions.ts'), import('../../daemon/local.ts')]);
        // Planned with the model the environment names, as the daemon plans: a mistake in it is
        // refused before anything is formed (it read as "no possible plan").
        const modelProblems = localPlanningProblems();
        if (modelProblems.length > 0) throw new InputError(modelProblems);
        return useServices(options, async ({ store, registry, planning }) => {
          const formed = await formProposedIntention(store, registry, localPrincipal(author), options.mind, {
            ...(objective ? { objective } : {}),
            ...(means ? { means } : {}),
            require_approval: options.requireApproval ?? false,
          }).catch((error: unknown) => {
            throw error instanceof InputError ? new InputError(error.problems.map((p) => ({ ...p, path: optionPath(p.path) }))) : error;
          });
          const { intention, result } = await planFormedIntentionInDetail(store, planning, formed);
          if (options.json) {
            printJson({ intention, planning: result });
          } else {
            process.stdout.write(`intention ${intention.id}: ${intention.objective}\n`);
            if (result.status === 'planned') {
              process.stdout.write(`planned with ${result.strategy}: plan ${result.plan.id} (${result.plan.steps.map((s) => s.key).join(', ')})\n`);
              for (const a of result.alternatives) process.stdout.write(`  ${a.selected ? '*' : ' '} ${a.strategy.padEnd(24)} score ${a.score.toFixed(3)}  ${a.why}\n`);
            } else if (result.status === 'draft') {
              process.stdout.write(`the model's plan ${result.plan.id} failed validation and is kept as a draft\n`);
              for (const e of result.errors) process.stdout.write(`${describeIssue('error', e)}\n`);
            } else if (result.status === 'no_possible_plan') {
              process.stdout.write(`no possible plan: the intention was abandoned\n`);
            } else {
              process.stdout.write(`not planned (${result.status === 'model_failed' ? result.outcome : result.code}): ${result.message}\n`);
            }
          }
          return result.status === 'planned' ? EXIT.ok : EXIT.refused;
        });
      }),
    );
}

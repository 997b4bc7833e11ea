import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, findMind, parseJsonOption, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { describeIssue } from '../report.ts';

interface IntendOptions extends StoreOptions {
  mind: string;
  capability?: string;
  params?: string;
  requireApproval?: boolean;
  as?: string;
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
        const [{ builtinRegistry }, { planIntention, planningFromEnv }, { formIntention }] = await Promise.all([
          import('../../capabilities/registry.ts'),
          import('../../drafting/plan-intention.ts'),
          import('../../mind/intentions.ts'),
        ]);
        const registry = builtinRegistry();
        let means = null;
        if (options.capability) {
          const params = parseJsonOption(options.params ?? '{}', '--params');
          const problems = registry.checkParams(options.capability, params).map((p) => ({ ...p, path: p.path === 'capability' ? '--capability' : `--params${p.path.slice('params'.length)}` }));
          if (problems.length > 0) throw new InputError(problems);
          means = { capability: options.capability, params: params as never, target: registry.targetOf(options.capability, params) };
        }
        if (!objective && !means) throw new InputError([{ code: 'missing_objective', path: 'objective', message: 'give an objective, or a means with --capability' }]);
        return useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const formed = await formIntention(store, {
            mindId: mind.id,
            ...(objective ? { objective } : {}),
            means,
            origin: 'operator',
            requireApproval: options.requireApproval ?? false,
            authoredBy: cliOperator(options.as),
          });
          if (!formed.ok) throw new InputError(formed.problems);
          const result = await planIntention(store, planningFromEnv(registry), formed.intention.id);
          if (options.json) {
            printJson({ intention: formed.intention, planning: result });
          } else {
            process.stdout.write(`intention ${formed.intention.id}: ${formed.intention.objective}\n`);
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

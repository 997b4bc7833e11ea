import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { EXIT } from '../exit-codes.ts';
import { PolicyDecisions, type PolicyDecision } from '../../core/vocabulary.ts';
import { cliOperator } from '../operator.ts';
import { action, localPrincipal, printJson, printProblems, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

/** An operation's problem placed on the argument that carried it. */
function onArguments(error: unknown): never {
  if (error instanceof InputError) {
    throw new InputError(error.problems.map((p) => ({ ...p, path: p.path === 'mind' ? '--mind' : p.path === 'target_pattern' ? 'target' : p.path })));
  }
  throw error;
}

export function policyCommand(program: Command): void {
  const policy = program.command('policy').description("list and change a mind's policy rules");

  withJsonOption(withDbOption(policy.command('list')))
    .description("a mind's rules, most specific first per capability, and the built-in defaults")
    .requiredOption('--mind <name>', 'the mind')
    .action(
      action(async (options: StoreOptions & { mind: string }) => {
        const { policyOf, resolveMind } = await import('../../operations/index.ts');
        await useStore(options, async (store) => {
          const principal = localPrincipal('cli');
          const mind = await resolveMind(store, principal, options.mind, '--mind');
          const { rules, defaults } = await policyOf(store, principal, mind.id);
          if (options.json) return printJson({ mind: mind.name, rules, defaults });
          process.stdout.write(`rules of ${mind.name}${rules.length ? '' : ': none (defaults apply)'}\n`);
          for (const r of rules) {
            process.stdout.write(`  ${r.capability.padEnd(20)} ${r.targetPattern.padEnd(32)} ${r.decision}${r.approvers > 1 ? ` (${r.approvers} approvers)` : ''}\n`);
          }
          process.stdout.write('defaults (outranked by any rule above)\n');
          for (const r of defaults) process.stdout.write(`  ${r.capability.padEnd(20)} ${r.target_pattern.padEnd(32)} ${r.decision}\n`);
        });
      }),
    );

  withJsonOption(withDbOption(policy.command('set')))
    .description('set the decision for a capability (or glob such as host.*) and a target pattern')
    .argument('<capability>', 'capability name or glob')
    .argument('<target>', 'target pattern: * any run of characters, ? one character')
    .argument('<decision>', 'allow, ask or deny')
    .requiredOption('--mind <name>', 'the mind')
    .option('--approvers <n>', 'distinct operators an approval needs (2 = four eyes)', '1')
    .option('--as <operator>', 'the operator making the change, recorded in the timeline (default: the OS user name)')
    .action(
      action(async (capability: string, target: string, decision: string, options: StoreOptions & { mind: string; approvers: string; as?: string }) => {
        // The decision and the number of approvers are the command line's to read (the API's schema
        // reads them there); the capability and the pattern are the operation's rule.
        const problems: Problem[] = [];
        if (!PolicyDecisions.has(decision)) problems.push({ code: 'invalid_decision', path: 'decision', message: 'the decision is allow, ask or deny' });
        const approvers = Number(options.approvers);
        if (options.approvers !== '1' && options.approvers !== '2') problems.push({ code: 'invalid_approvers', path: '--approvers', message: 'approvers is 1 or 2' });
        if (problems.length > 0) throw new InputError(problems);
        const principal = localPrincipal(cliOperator(options.as));
        const { setPolicyRule } = await import('../../operations/catalogue.ts');
        await useStore(options, async (store) => {
          const rule = await setPolicyRule(store, principal, options.mind, { capability, target_pattern: target, decision: decision as PolicyDecision, approvers: approvers as 1 | 2 }).catch(
            onArguments,
          );
          if (options.json) printJson(rule);
          else process.stdout.write(`${options.mind}: ${capability} ${target} → ${decision}${approvers > 1 ? ' (four eyes)' : ''}\n`);
        });
      }),
    );

  withJsonOption(withDbOption(policy.command('remove')))
    .description('remove a rule')
    .argument('<capability>')
    .argument('<target>')
    .requiredOption('--mind <name>', 'the mind')
    .option('--as <operator>', 'the operator making the change, recorded in the timeline (default: the OS user name)')
    .action(
      action(async (capability: string, target: string, options: StoreOptions & { mind: string; as?: string }) => {
        const principal = localPrincipal(cliOperator(options.as));
        const { NotFound, removePolicyRule } = await import('../../operations/index.ts');
        return useStore(options, async (store) => {
          try {
            await removePolicyRule(store, principal, options.mind, { capability, target_pattern: target });
          } catch (error) {
            // No such rule is a refusal of this removal, not a mistake in the command line.
            if (!(error instanceof NotFound) || error.problems[0]?.code !== 'no_rule') onArguments(error);
            printProblems(error.problems, options.json);
            return EXIT.refused;
          }
          if (options.json) printJson({ removed: true });
          else process.stdout.write(`removed ${capability} ${target}\n`);
          return EXIT.ok;
        });
      }),
    );
}

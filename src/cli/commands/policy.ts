import type { Command } from 'commander';
import { InputError, type Problem } from '../../core/errors.ts';
import { PolicyDecisions, type PolicyDecision } from '../../core/vocabulary.ts';
import { DEFAULT_RULES } from '../../capabilities/policy/decide.ts';
import { removePolicyRule, setPolicyRule } from '../../capabilities/policy/changes.ts';
import { checkTargetPattern } from '../../capabilities/policy/target-pattern.ts';
import { cliOperator } from '../operator.ts';
import { action, findMind, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

const CAPABILITY_PATTERN = /^[a-z*?][a-z0-9_.*?]*$/;

export function policyCommand(program: Command): void {
  const policy = program.command('policy').description("list and change a mind's policy rules");

  withJsonOption(withDbOption(policy.command('list')))
    .description("a mind's rules, most specific first per capability, and the built-in defaults")
    .requiredOption('--mind <name>', 'the mind')
    .action(
      action(async (options: StoreOptions & { mind: string }) => {
        await useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const rules = await store.policyRules.listByMind(mind.id);
          if (options.json) return printJson({ mind: mind.name, rules, defaults: DEFAULT_RULES });
          process.stdout.write(`rules of ${mind.name}${rules.length ? '' : ': none (defaults apply)'}\n`);
          for (const r of rules) {
            process.stdout.write(`  ${r.capability.padEnd(20)} ${r.targetPattern.padEnd(32)} ${r.decision}${r.approvers > 1 ? ` (${r.approvers} approvers)` : ''}\n`);
          }
          process.stdout.write('defaults (outranked by any rule above)\n');
          for (const r of DEFAULT_RULES) process.stdout.write(`  ${r.capability.padEnd(20)} ${r.target_pattern.padEnd(32)} ${r.decision}\n`);
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
        const problems: Problem[] = [];
        if (!CAPABILITY_PATTERN.test(capability)) problems.push({ code: 'invalid_capability', path: 'capability', message: 'a capability name or glob such as service.restart or host.*' });
        const patternProblem = checkTargetPattern(target);
        if (patternProblem) problems.push({ code: 'invalid_target_pattern', path: 'target', message: patternProblem });
        if (!PolicyDecisions.has(decision)) problems.push({ code: 'invalid_decision', path: 'decision', message: 'the decision is allow, ask or deny' });
        const approvers = Number(options.approvers);
        if (options.approvers !== '1' && options.approvers !== '2') problems.push({ code: 'invalid_approvers', path: '--approvers', message: 'approvers is 1 or 2' });
        if (problems.length > 0) throw new InputError(problems);
        const operator = cliOperator(options.as);
        await useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const rule = await setPolicyRule(store, { mindId: mind.id, capability, targetPattern: target, decision: decision as PolicyDecision, approvers }, operator);
          if (options.json) printJson(rule);
          else process.stdout.write(`${mind.name}: ${capability} ${target} → ${decision}${approvers > 1 ? ' (four eyes)' : ''}\n`);
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
        const operator = cliOperator(options.as);
        return useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const removed = await removePolicyRule(store, { mindId: mind.id, capability, targetPattern: target }, operator);
          if (options.json) printJson({ removed });
          else process.stdout.write(removed ? `removed ${capability} ${target}\n` : `no rule ${capability} ${target}\n`);
          return removed ? 0 : 1;
        });
      }),
    );
}

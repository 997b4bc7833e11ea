import type { Command } from 'commander';
import { abortConditionText } from '../../core/abort-conditions.ts';
import { InputError } from '../../core/errors.ts';
import type { ValidationIssue } from '../../core/plan.ts';
import { isId } from '../../core/ids.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, findMind, localPrincipal, printJson, useServices, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { describeIssue } from '../report.ts';
import { planPauseCommands } from './plan-pauses.ts';
import { planPreviewCommand } from './plan-preview.ts';

interface SubmitLine {
  file: string;
  stored: boolean;
  plan_id: string | null;
  intention_id: string | null;
  status: string | null;
  reason: string;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

/** The findings a summarise_findings step recorded in its observation (level and words). */
function summaryFindings(observation: unknown): { level: string; text: string }[] {
  const findings = (observation as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(findings)) return [];
  return findings.flatMap((f) => (f && typeof f.level === 'string' && typeof f.text === 'string' ? [{ level: f.level, text: f.text }] : []));
}

export function planCommand(program: Command): void {
  const plan = program.command('plan').description('store, preview and inspect plans');
  planPreviewCommand(plan);
  planPauseCommands(plan);

  withJsonOption(withDbOption(plan.command('submit').argument('<files...>', 'plan files (JSON or YAML)')))
    .description('store operator-authored plans: valid ones as `validated`, invalid ones as `draft` with their errors')
    .requiredOption('--mind <name>', 'the mind the plans belong to')
    .option('--as <operator>', "the plans' author, who cannot approve their actions (default: the OS user name)")
    .action(
      action(async (files: string[], options: StoreOptions & { mind: string; as?: string }) => {
        const principal = localPrincipal(cliOperator(options.as));
        const [{ submitPlanDraft, NotStored }, { readPlanFile }] = await Promise.all([import('../../operations/index.ts'), import('../plan-file.ts')]);
        return useServices(options, async ({ store, registry }) => {
          const mind = await findMind(store, options.mind, principal.operator);
          const results: SubmitLine[] = [];
          let exit: number = EXIT.ok;
          for (const file of files) {
            const read = await readPlanFile(file);
            if (!read.ok) {
              exit = read.unreadable ? EXIT.usage : Math.max(exit, EXIT.refused);
              results.push({ file, stored: false, plan_id: null, intention_id: null, status: null, reason: 'unreadable or malformed', errors: read.errors, warnings: [] });
              continue;
            }
            try {
              const submitted = await submitPlanDraft(store, registry, principal, mind.id, read.value);
              if (submitted.status !== 'validated') exit = Math.max(exit, EXIT.refused);
              results.push({ file, reason: '', ...submitted });
            } catch (error) {
              if (!(error instanceof NotStored)) throw error;
              exit = Math.max(exit, EXIT.refused);
              results.push({ file, stored: false, plan_id: null, intention_id: null, status: null, reason: error.reason, errors: error.problems, warnings: [] });
            }
          }
          if (options.json) printJson(results.length === 1 ? results[0] : results);
          else {
            for (const r of results) {
              const head = r.stored ? `stored as ${r.status} plan ${r.plan_id}` : `not stored: ${r.reason}`;
              process.stdout.write(`${r.file}: ${head}\n`);
              for (const e of r.errors) process.stdout.write(`${describeIssue('error', e)}\n`);
              for (const w of r.warnings) process.stdout.write(`${describeIssue('warning', w)}\n`);
            }
          }
          return exit;
        });
      }),
    );

  withJsonOption(withDbOption(plan.command('show').argument('<plan-id>', 'the plan')))
    .description('show a stored plan and its steps')
    .action(
      action(async (planId: string, options: StoreOptions) => {
        if (!isId(planId)) throw new InputError([{ code: 'invalid_id', path: 'plan-id', message: `"${planId}" is not a plan id` }]);
        const { planDetail } = await import('../../operations/plans.ts');
        return useServices(options, async ({ store, registry }) => {
          const detail = await planDetail(store, registry, localPrincipal('cli'), planId);
          const found = { ...detail.plan, steps: detail.steps };
          const budget = detail.usage.budget;
          if (options.json) return printJson({ ...found, usage: detail.usage, revisions: detail.revisions });
          process.stdout.write(`plan ${found.id}  revision ${found.revision}  ${found.status}${found.pause ? ' (paused)' : ''}  origin ${found.origin}\n`);
          process.stdout.write(`objective: ${found.objective}\n`);
          process.stdout.write(
            `budget: ${Object.entries(budget)
              .map(([dimension, cap]) => `${dimension.replace('_', ' ')} ${cap}`)
              .join(', ')}\n`,
          );
          if (found.pause) {
            const why = found.pause.reason ? `: ${found.pause.reason}` : '';
            process.stdout.write(`paused by ${found.pause.by || 'an operator'} at ${found.pause.at.toISOString()}${why} (no new step runs until it is resumed)\n`);
          }
          for (const step of found.steps) {
            const what = step.capability ? `${step.capability} ${step.target}` : String(step.spec.action ?? step.kind);
            const after = step.dependsOn.length ? `  after ${step.dependsOn.join(', ')}` : '';
            process.stdout.write(`  ${step.key.padEnd(8)} ${step.status.padEnd(17)} ${step.kind.padEnd(18)} ${what}${after}\n`);
          }
          if (found.statusReason) process.stdout.write(`why: ${found.statusReason}\n`);
          for (const condition of found.abortConditions) process.stdout.write(`stops when: ${abortConditionText(condition)}\n`);
          // A summary's findings, most severe first: what the diagnosis found, in words.
          for (const step of found.steps) {
            const findings = summaryFindings(step.observation);
            if (findings.length === 0) continue;
            process.stdout.write(`findings of ${step.key}:\n`);
            for (const f of findings) process.stdout.write(`  ${f.level.padEnd(8)} ${f.text}\n`);
          }
          for (const e of found.validation.errors) process.stdout.write(`${describeIssue('error', e)}\n`);
          for (const w of found.validation.warnings) process.stdout.write(`${describeIssue('warning', w)}\n`);
        });
      }),
    );
}

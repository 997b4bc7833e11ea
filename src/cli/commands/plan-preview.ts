// `praxis plan preview FILE --mind M`: what a plan file would meet if it were submitted now (see
// docs/validation.md, "Previewing a plan"), without storing, asking or spending anything. Exits
// 0 when the plan is valid, 1 when it is not, 2 when the file or the mind cannot be used.

import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { EXIT } from '../exit-codes.ts';
import { action, printJson, useServices, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { describeEstimate, describeIssue, formatTable } from '../report.ts';

export function planPreviewCommand(plan: Command): void {
  withJsonOption(withDbOption(plan.command('preview').argument('<file>', 'a plan file (JSON or YAML)')))
    .description('for every step, the policy decision it would meet now, the approvals and grants it would need, and what it would use; stores nothing')
    .requiredOption('--mind <name>', 'the mind the plan would belong to')
    .action(
      action(async (file: string, options: StoreOptions & { mind: string }) => {
        const [{ previewPlanDraft }, { readPlanFile }] = await Promise.all([import('../../operations/plan-preview.ts'), import('../plan-file.ts')]);
        const read = await readPlanFile(file);
        if (!read.ok) throw new InputError(read.errors.map((e) => ({ ...e, path: e.path || 'file' })));
        return useServices(options, async ({ store, registry }) => {
          const principal = { tokenId: null, operator: 'cli', role: 'viewer' as const, mindId: null };
          const preview = await previewPlanDraft(store, registry, principal, options.mind, read.value);
          if (options.json) printJson(preview);
          else {
            const a = preview.attention;
            process.stdout.write(`${file}: ${preview.valid ? 'valid' : 'INVALID'} for mind ${preview.mind.name} (${preview.mind.status})\n`);
            const rows = preview.steps.map((s) => [
              s.key,
              s.kind,
              s.decision,
              s.needs,
              [s.capability, s.target].filter(Boolean).join(' '),
              s.reason || s.checks.map((c) => `${c.role}: ${c.decision}`).join(', '),
            ]);
            process.stdout.write(formatTable(['STEP', 'KIND', 'DECISION', 'NEEDS', 'ACTION', 'WHY'], rows));
            process.stdout.write(`estimate: ${describeEstimate(preview.estimate)}; budget ${JSON.stringify(preview.budget)}${preview.within_budget ? '' : ' (exceeded)'}\n`);
            process.stdout.write(
              `operators: ${a.approval_requests} approval request(s), ${a.capability_requests} capability request(s), ${a.operator_decisions} decision(s); ${a.grant_operations} grant operation(s)\n`,
            );
            if (a.blocked_steps.length > 0) process.stdout.write(`would stop at: ${a.blocked_steps.join(', ')}\n`);
            for (const e of preview.errors) process.stdout.write(`${describeIssue('error', e)}\n`);
            for (const w of preview.warnings) process.stdout.write(`${describeIssue('warning', w)}\n`);
          }
          return preview.valid ? EXIT.ok : EXIT.refused;
        });
      }),
    );
}

import type { Command } from 'commander';
import { EXIT } from '../exit-codes.ts';
import { describeEstimate, describeIssue } from '../report.ts';

export function validateCommand(program: Command): void {
  program
    .command('validate')
    .description('validate plan files (JSON or YAML) without storing or running them')
    .argument('<files...>', 'plan files')
    .option('--json', 'print {"valid", "errors", "warnings"} per file as JSON')
    .action(async (files: string[], options: { json?: boolean }) => {
      const [{ localRegistry }, { checkPlanDraft }, { readPlanFile }] = await Promise.all([import('../../daemon/registry.ts'), import('../../operations/plan-checks.ts'), import('../plan-file.ts')]);
      const registry = localRegistry();
      const results = [];
      let exit: number = EXIT.ok;
      for (const file of files) {
        const read = await readPlanFile(file);
        const assessment = read.ok ? checkPlanDraft(registry, read.value) : { valid: false, errors: read.errors, warnings: [], estimate: null };
        if (!read.ok && read.unreadable) exit = EXIT.usage;
        else if (!assessment.valid && exit === EXIT.ok) exit = EXIT.refused;
        results.push({ file, valid: assessment.valid, errors: assessment.errors, warnings: assessment.warnings, estimate: assessment.estimate });
      }
      if (options.json) {
        // One file prints one object, as documented; several print a list.
        const out = results.length === 1 ? results[0] : results;
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      } else {
        for (const r of results) {
          const size = r.estimate ? ` (estimate: ${describeEstimate(r.estimate)})` : '';
          process.stdout.write(`${r.file}: ${r.valid ? 'valid' : 'INVALID'}${r.valid ? size : ''}\n`);
          for (const e of r.errors) process.stdout.write(`${describeIssue('error', e)}\n`);
          for (const w of r.warnings) process.stdout.write(`${describeIssue('warning', w)}\n`);
        }
      }
      process.exitCode = exit;
    });
}

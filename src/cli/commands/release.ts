// `praxis release`: the operator's answer to a blocked step, after checking the world by hand.
// A step blocks when its outcome is unknown (a non-idempotent write interrupted mid-way) or its
// plan's budget ran out; releasing lets it run again. The step is named by key within its plan,
// since that is what `praxis plan show` prints.

import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { EXIT } from '../exit-codes.ts';
import { action, localPrincipal, printJson, printProblems, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

interface ReleaseOptions extends StoreOptions {
  as: string;
  note?: string;
}

export function releaseCommand(program: Command): void {
  withJsonOption(withDbOption(program.command('release')))
    .description('let a blocked step run again, once you have checked what its interrupted action did')
    .argument('<plan-id>', 'the plan')
    .argument('<step>', 'the step key (e.g. P1) or id')
    .requiredOption('--as <operator>', 'the operator releasing (recorded on the event)')
    .option('--note <text>', 'what you checked, kept in the timeline')
    .action(
      action(async (planId: string, stepRef: string, options: ReleaseOptions) => {
        if (!isId(planId)) throw new InputError([{ code: 'invalid_id', path: 'plan-id', message: `"${planId}" is not a plan id` }]);
        const [{ Conflict }, { releasePlanStep }] = await Promise.all([import('../../operations/errors.ts'), import('../../operations/decisions.ts')]);
        return useStore(options, async (store) => {
          try {
            const { step } = await releasePlanStep(store, localPrincipal(options.as), planId, stepRef, options.note);
            if (options.json) printJson({ released: true, step });
            else process.stdout.write(`released ${step.key} of plan ${planId}: it is ready to run again\n`);
            return EXIT.ok;
          } catch (error) {
            // A step that is not blocked (or was released meanwhile) is a refusal, not a usage error.
            if (!(error instanceof Conflict)) throw error;
            printProblems(error.problems, options.json);
            return EXIT.refused;
          }
        });
      }),
    );
}

// `praxis release`: the operator's answer to a blocked step, after checking the world by hand.
// A step blocks when its outcome is unknown (a non-idempotent write interrupted mid-way) or its
// plan's budget ran out; releasing lets it run again. The step is named by key within its plan,
// since that is what `praxis plan show` prints.

import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { releaseStep } from '../../execution/recovery.ts';
import { EXIT } from '../exit-codes.ts';
import { action, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

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
        return useStore(options, async (store) => {
          const plan = await store.plans.get(planId);
          if (!plan) throw new InputError([{ code: 'not_found', path: 'plan-id', message: `no plan ${planId}` }]);
          const step = plan.steps.find((s) => s.key === stepRef || s.id === stepRef);
          if (!step) {
            throw new InputError([{ code: 'unknown_step', path: 'step', message: `plan ${planId} has no step "${stepRef}" (steps: ${plan.steps.map((s) => s.key).join(', ')})` }]);
          }
          const answer = await releaseStep(store, step.id, options.as);
          if (answer.released && options.note) {
            // The release event has no room for a note, so the operator's words follow it.
            await store.events.append({
              type: 'operator_note',
              mindId: plan.mindId,
              intentionId: plan.intentionId,
              planId: plan.id,
              stepId: step.id,
              data: { operator: options.as, note: options.note, about: 'release', key: step.key },
            });
          }
          if (options.json) printJson(answer);
          else if (answer.released) process.stdout.write(`released ${step.key} of plan ${planId}: it is ready to run again\n`);
          else process.stderr.write(`refused (${answer.code}): ${answer.message}\n`);
          if (answer.released) return EXIT.ok;
          return answer.code === 'invalid_operator' ? EXIT.usage : EXIT.refused;
        });
      }),
    );
}

// `praxis plan pause|resume ID` and `praxis mind pause|resume NAME`: an operator holds a plan (or
// every open plan of a mind) and lets it go again. A paused plan claims no new step; a step
// already executing finishes; waits and approvals keep their place. See docs/executor.md.

import type { Command } from 'commander';
import type { Principal } from '../../access/permissions.ts';
import { InputError } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import type { PlanRecord } from '../../operations/records.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, printJson, printProblems, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';

interface PauseOptions extends StoreOptions {
  as?: string;
  reason?: string;
}

/** Whoever runs the CLI against the store is trusted; --as (or the OS user) names them on the events. */
function principalOf(options: PauseOptions): Principal {
  return { tokenId: null, operator: cliOperator(options.as), role: 'operator', mindId: null };
}

/** Runs `work`, printing a refusal (already paused, not paused, closed) as one with its exit code. */
async function refusable(json: boolean | undefined, work: () => Promise<void>): Promise<number> {
  const { Conflict } = await import('../../operations/errors.ts');
  try {
    await work();
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    printProblems(error.problems, json);
    return EXIT.refused;
  }
}

function line(plan: PlanRecord): string {
  return `plan ${plan.id}  ${plan.status}${plan.pause ? `  paused by ${plan.pause.by}` : ''}`;
}

export function planPauseCommands(plan: Command): void {
  for (const verb of ['pause', 'resume'] as const) {
    withJsonOption(withDbOption(plan.command(verb).argument('<plan-id>', 'the plan')))
      .description(
        verb === 'pause' ? 'pause a plan: it claims no new step (a step already executing finishes; waits and approvals keep their place)' : 'resume a paused plan: its due work acts on the next pass',
      )
      .option('--as <operator>', 'the operator (recorded on the event; default: the OS user name)')
      .option('--reason <text>', 'why, kept in the timeline')
      .action(
        action(async (planId: string, options: PauseOptions) => {
          if (!isId(planId)) throw new InputError([{ code: 'invalid_id', path: 'plan-id', message: `"${planId}" is not a plan id` }]);
          const who = principalOf(options);
          const { pausePlan, resumePlan } = await import('../../operations/plan-pauses.ts');
          return useStore(options, (store) =>
            refusable(options.json, async () => {
              const { plan: moved } = await (verb === 'pause' ? pausePlan : resumePlan)(store, who, planId, { reason: options.reason });
              if (options.json) printJson({ [verb === 'pause' ? 'paused' : 'resumed']: true, plan: moved });
              else process.stdout.write(`${verb === 'pause' ? 'paused' : 'resumed'} ${line(moved)}\n`);
            }),
          );
        }),
      );
  }
}

export function mindPauseCommands(mind: Command): void {
  for (const verb of ['pause', 'resume'] as const) {
    withJsonOption(withDbOption(mind.command(verb).argument('<name>', 'the mind (name or id)')))
      .description(verb === 'pause' ? 'pause every open plan of the mind (plans made later are not paused; disable the mind to stop it)' : 'resume every paused plan of the mind')
      .option('--as <operator>', 'the operator (recorded on the events; default: the OS user name)')
      .option('--reason <text>', 'why, kept in the timeline')
      .action(
        action(async (name: string, options: PauseOptions) => {
          const who = principalOf(options);
          const { pauseMind, resumeMind } = await import('../../operations/plan-pauses.ts');
          return useStore(options, (store) =>
            refusable(options.json, async () => {
              const done = await (verb === 'pause' ? pauseMind : resumeMind)(store, who, name, { reason: options.reason });
              if (options.json) return printJson({ mind: done.mind.name, [verb === 'pause' ? 'paused' : 'resumed']: done.plans.map((p) => p.id) });
              process.stdout.write(`${verb === 'pause' ? 'paused' : 'resumed'} ${done.plans.length} plan${done.plans.length === 1 ? '' : 's'} of mind ${done.mind.name}\n`);
              for (const p of done.plans) process.stdout.write(`  ${p.id}  ${p.status}  ${p.objective}\n`);
            }),
          );
        }),
      );
  }
}

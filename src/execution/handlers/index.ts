// One handler per step kind; the executor dispatches a claimed step here.

import type { StepScene } from '../apply.ts';
import type { ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';
import type { StepIO } from '../pass.ts';
import { runInternalStep } from './internal.ts';
import { runMonitorStep } from './monitor.ts';
import { runRequestStep } from './request-capability.ts';
import { runVerifyStep } from './verify.ts';
import { runWaitStep } from './wait.ts';

/**
 * Runs the handler of any kind but `capability`, whose run depends on what it is allowed to do
 * (runCapabilityStep). The records of the calls it makes are left in `io` for the step's move.
 */
export function runHandler(ctx: ExecutorContext, scene: StepScene, io: StepIO): Promise<StepDecision> {
  switch (scene.step.kind) {
    case 'capability':
      throw new Error('a capability step runs through runCapabilityStep');
    case 'request_capability':
      return runRequestStep(ctx, scene, io);
    case 'verify':
      return runVerifyStep(ctx, scene, io);
    case 'monitor':
      return runMonitorStep(ctx, scene, io);
    case 'wait':
      return runWaitStep(ctx, scene, io);
    case 'internal':
      return runInternalStep(ctx, scene, io);
  }
}

// One handler per step kind; the executor dispatches a claimed step here.

import type { StepScene } from '../apply.ts';
import type { ExecutorContext } from '../context.ts';
import type { StepDecision } from '../decisions.ts';
import { runCapabilityStep } from './capability.ts';
import { runInternalStep } from './internal.ts';
import { runMonitorStep } from './monitor.ts';
import { runRequestStep } from './request-capability.ts';
import { runVerifyStep } from './verify.ts';
import { runWaitStep } from './wait.ts';

export function runHandler(ctx: ExecutorContext, scene: StepScene): Promise<StepDecision> {
  switch (scene.step.kind) {
    case 'capability':
      return runCapabilityStep(ctx, scene);
    case 'request_capability':
      return runRequestStep(ctx, scene);
    case 'verify':
      return runVerifyStep(ctx, scene);
    case 'monitor':
      return runMonitorStep(ctx, scene);
    case 'wait':
      return runWaitStep(ctx, scene);
    case 'internal':
      return runInternalStep(ctx, scene);
  }
}

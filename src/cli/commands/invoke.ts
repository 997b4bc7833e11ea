import type { Command } from 'commander';
import type { InvokeRequest, InvokeResult } from '../../capabilities/invocation.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, capabilityService, findMind, parseJsonOption, printJson, useStore, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
import { describeIssue } from '../report.ts';

interface CallOptions extends StoreOptions {
  mind: string;
  params: string;
  as?: string;
  requireApproval?: boolean;
  why?: string;
}

function oneOffCall(command: Command): Command {
  return withJsonOption(withDbOption(command))
    .argument('<capability>', 'e.g. service.status')
    .requiredOption('--mind <name>', 'the mind acting')
    .option('--params <json>', 'parameters as a JSON object', '{}')
    .option('--as <operator>', 'the operator making the call (recorded as its author, who cannot approve it; default: the OS user name)')
    .option('--require-approval', 'ask an operator even where policy allows')
    .option('--why <text>', 'the reason, shown to an approver');
}

function request(mindId: string, capability: string, options: CallOptions, params: unknown): InvokeRequest {
  // Always an author: an action nobody authored could not be approved under four eyes.
  const operator = cliOperator(options.as);
  return {
    mindId,
    capability,
    params,
    origin: `operator:${operator}`,
    authoredBy: operator,
    requireApproval: options.requireApproval ?? false,
    explanation: {
      what: `${capability} with ${JSON.stringify(params)}`,
      why: options.why ?? `one-off call by ${operator} from the command line`,
      expected_outcome: '',
      side_effects: '',
      alternatives: [],
    },
  };
}

export function invokeCommands(program: Command): void {
  oneOffCall(program.command('preview'))
    .description('show the decision a call would meet and what it would need; records nothing')
    .action(
      action(async (capability: string, options: CallOptions) => {
        const params = parseJsonOption(options.params, '--params');
        return useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const service = await capabilityService(store);
          const preview = await service.preview(request(mind.id, capability, options, params));
          if (options.json) printJson(preview);
          else {
            process.stdout.write(`${capability} on ${preview.target || '?'}: ${preview.decision}; needs ${preview.needs}\n`);
            if (preview.verdict) process.stdout.write(`  because ${preview.verdict.reason}\n`);
            for (const i of preview.issues) process.stdout.write(`${describeIssue('error', i)}\n`);
          }
          return preview.decision === 'invalid' ? EXIT.usage : preview.needs === 'refused' ? EXIT.refused : EXIT.ok;
        });
      }),
    );

  oneOffCall(program.command('invoke'))
    .description('call a capability once through policy: runs, waits for approval, or is refused')
    .action(
      action(async (capability: string, options: CallOptions) => {
        const params = parseJsonOption(options.params, '--params');
        return useStore(options, async (store) => {
          const mind = await findMind(store, options.mind);
          const service = await capabilityService(store);
          const result = await service.invoke(request(mind.id, capability, options, params));
          if (options.json) printJson(result);
          else process.stdout.write(describeResult(result));
          return exitFor(result);
        });
      }),
    );
}

export function describeResult(result: InvokeResult): string {
  switch (result.status) {
    case 'executed':
      return `executed: ${result.summary}${result.lowTrust ? ' (low-trust content)' : ''}\n${JSON.stringify(result.observation, null, 2)}\n`;
    case 'pending':
      return `waiting for approval: request ${result.approvalId} (${result.verdict.reason})\n`;
    case 'denied':
      return `denied (${result.code}): ${result.reason}\n`;
    case 'failed':
      return `failed (${result.code}): ${result.error}${result.retrySafe ? ' (safe to retry)' : ''}\n${(result.issues ?? []).map((i) => `${describeIssue('error', i)}\n`).join('')}`;
  }
}

export function exitFor(result: InvokeResult): number {
  if (result.status === 'executed' || result.status === 'pending') return EXIT.ok;
  if (result.status === 'failed' && (result.code === 'invalid_params' || result.code === 'unknown_capability')) return EXIT.usage;
  return EXIT.refused;
}

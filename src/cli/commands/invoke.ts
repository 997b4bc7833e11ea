import type { Command } from 'commander';
import { ERROR_CODES, isErrorCode } from '../../core/error-codes.ts';
import type { OneOffCall } from '../../operations/one-off-calls.ts';
import type { InvokeResult } from '../../operations/records.ts';
import { EXIT } from '../exit-codes.ts';
import { cliOperator } from '../operator.ts';
import { action, localPrincipal, onMindOption, parseJsonOption, printJson, useServices, withDbOption, withJsonOption, type StoreOptions } from '../context.ts';
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

/** The call as the operations take it, from the command line. */
function callOf(capability: string, options: CallOptions): OneOffCall {
  return {
    capability,
    params: parseJsonOption(options.params, '--params'),
    require_approval: options.requireApproval ?? false,
    why: options.why ?? `one-off call by ${cliOperator(options.as)} from the command line`,
  };
}

export function invokeCommands(program: Command): void {
  oneOffCall(program.command('preview'))
    .description('show the decision a call would meet and what it would need; records nothing')
    .action(
      action(async (capability: string, options: CallOptions) => {
        const call = callOf(capability, options);
        // Always an author: an action nobody authored could not be approved under four eyes.
        const principal = localPrincipal(cliOperator(options.as));
        const { previewOneOffCall } = await import('../../operations/one-off-calls.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const preview = await previewOneOffCall(store, capabilities, principal, options.mind, call).catch(onMindOption);
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
        const call = callOf(capability, options);
        const principal = localPrincipal(cliOperator(options.as));
        const { invokeOnce } = await import('../../operations/one-off-calls.ts');
        return useServices(options, async ({ store, capabilities }) => {
          const result = await invokeOnce(store, capabilities, principal, options.mind, call).catch(onMindOption);
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
  // A failed call ends as its code does everywhere (bad parameters are the command line's mistake).
  if (result.status === 'failed' && isErrorCode(result.code)) return EXIT[ERROR_CODES[result.code].exit];
  return EXIT.refused;
}

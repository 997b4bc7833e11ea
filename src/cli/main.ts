// The `praxis` command line. Each command lives in its own module under commands/; a command
// module declares its arguments and imports what its action needs only when it runs, so that
// `praxis --help` or `praxis validate` never loads the store, the server or the model client.

import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT } from './exit-codes.ts';
import { approvalCommands } from './commands/approvals.ts';
import { demoCommand } from './commands/demo.ts';
import { intendCommand } from './commands/intend.ts';
import { invokeCommands } from './commands/invoke.ts';
import { maskCommand } from './commands/mask.ts';
import { mcpCommand } from './commands/mcp.ts';
import { mindCommand } from './commands/mind.ts';
import { policyCommand } from './commands/policy.ts';
import { planCommand } from './commands/plan.ts';
import { plansCommand } from './commands/plans.ts';
import { releaseCommand } from './commands/release.ts';
import { serveCommand } from './commands/serve.ts';
import { timelineCommand } from './commands/timeline.ts';
import { tokenCommand } from './commands/token.ts';
import { validateCommand } from './commands/validate.ts';
import { wantsCommand } from './commands/wants.ts';
import { webhooksCommand } from './commands/webhooks.ts';

// Output piped into `head` and the like may close early; that is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// Two levels up from src/cli/ and from dist/cli/ alike.
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('praxis')
  .description('Stored, validated plans executed through typed capabilities under operator policy')
  .version(version, '-V, --version', 'print the version of praxis')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

validateCommand(program);
mindCommand(program);
planCommand(program);
intendCommand(program);
policyCommand(program);
invokeCommands(program);
approvalCommands(program);
maskCommand(program);
serveCommand(program);
demoCommand(program);
tokenCommand(program);
plansCommand(program);
releaseCommand(program);
timelineCommand(program);
webhooksCommand(program);
mcpCommand(program);
wantsCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; anything else is a usage error.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    process.stderr.write(`praxis: ${(error as Error).message}\n`);
    process.exitCode = EXIT.failure;
  }
}

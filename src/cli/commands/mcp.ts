// `praxis mcp`: serves MCP on stdin/stdout for the caller a token names, so a desktop MCP client
// can run Praxis as a local tool. Without a valid token it refuses to start: an MCP session
// always speaks for someone, and never with more than that token's role allows.

import type { Command } from 'commander';
import { action, useServices, withDbOption, type StoreOptions } from '../context.ts';
import { EXIT } from '../exit-codes.ts';
import { InputError } from '../../core/errors.ts';
import type { SessionEnd } from '../../daemon/local.ts';

interface McpOptions extends StoreOptions {
  token?: string;
}

/**
 * The exit code of each way a session ends (docs/mcp.md): the client hanging up or a stop is the
 * ordinary end; a message too large to read is refused input; a token that stops holding ends
 * it as it refuses it at the start; a store or a stream that fails is breakage.
 */
const SESSION_EXIT: Readonly<Record<SessionEnd, number>> = {
  client_closed: EXIT.ok,
  stopped: EXIT.ok,
  input_too_large: EXIT.refused,
  token_ended: EXIT.usage,
  store_unreadable: EXIT.failure,
  input_failed: EXIT.failure,
  output_failed: EXIT.failure,
};

export function mcpCommand(program: Command): void {
  withDbOption(program.command('mcp'))
    .description('serve MCP on stdin/stdout: propose and inspect plans for the mind (or minds) a token may see')
    .option('--token <token>', 'bearer token to act as (default: the PRAXIS_TOKEN environment variable)')
    .action(
      action(async (options: McpOptions) => {
        const token = options.token ?? process.env.PRAXIS_TOKEN ?? '';
        if (token.trim() === '') {
          process.stderr.write('praxis mcp: no token: pass --token <token> or set PRAXIS_TOKEN (create one with: praxis token create)\n');
          return EXIT.usage;
        }
        const [{ authenticate, looksLikeToken }, { serveMcpOnStdio, localPlanningProblems }] = await Promise.all([import('../../access/tokens.ts'), import('../../daemon/local.ts')]);
        // A session plans with the model the environment names, as the daemon does: a mistake in
        // it is refused before the session starts, not found at the first plan.
        const modelProblems = localPlanningProblems();
        if (modelProblems.length > 0) throw new InputError(modelProblems);
        // Not a Praxis token at all: refused before the store is opened (which would create one).
        if (!looksLikeToken(token.trim())) {
          process.stderr.write('praxis mcp: the token is unknown, revoked or expired\n');
          return EXIT.usage;
        }
        return useServices(options, async (services) => {
          const { store } = services;
          const principal = await authenticate(store, token.trim());
          if (!principal) {
            process.stderr.write('praxis mcp: the token is unknown, revoked or expired\n');
            return EXIT.usage;
          }
          const stop = new AbortController();
          const onSignal = () => {
            if (!stop.signal.aborted) return stop.abort();
            process.stderr.write('praxis mcp: second signal: exiting without waiting\n');
            process.exit(EXIT.failure);
          };
          process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
          try {
            const session = await serveMcpOnStdio(services, principal, stop.signal);
            // Calls still running after a stop's grace: closing the store under them would fail
            // them halfway, so the process ends here, the store unclosed; what they had not
            // committed is rolled back as after any crash (docs/mcp.md).
            if (session.abandoned > 0) process.exit(EXIT.failure);
            return SESSION_EXIT[session.end];
          } finally {
            process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
          }
        });
      }),
    );
}

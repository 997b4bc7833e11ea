// `praxis demo`: the daemon on a fresh demo database and a simulated host, with a story seeded
// to play in about a minute (see src/daemon/demo.ts). It prints the console address with an
// operator token and what to click (or, when the console is not built, says so and prints no
// link). `--auto` plays the operator too and exits 0 once the escalation note is written, or 1
// with where the story stood if it does not finish in time.

import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import type { DaemonFlags } from '../../daemon/config.ts';
import { AUTO_OPERATOR, DEMO_DB_PATH, DEMO_MIND, DEMO_UNIT } from '../../daemon/demo-names.ts';
import type { DemoStory, Milestone } from '../../daemon/demo.ts';
import { EXIT } from '../exit-codes.ts';
import { action } from '../context.ts';
import { loadDaemon, stopOnSignal } from './serve.ts';

interface DemoOptions {
  host?: string;
  port?: string;
  auto?: boolean;
  timeout?: string;
  logLevel?: string;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

function tell(milestone: Milestone, auto: boolean): void {
  switch (milestone.kind) {
    case 'approval':
      say(auto ? `• approval requested for ${milestone.what}: approving as ${AUTO_OPERATOR}` : `• approval requested for ${milestone.what}: open Approvals in the console and approve it`);
      break;
    case 'request':
      say(auto ? `• capability request: ${milestone.what}: granting as ${AUTO_OPERATOR}` : `• capability request: ${milestone.what}: open Approvals in the console (Capability requests) and grant it`);
      break;
    case 'note':
      say(`• escalation note: ${String(milestone.event.data.message ?? milestone.event.data.note ?? JSON.stringify(milestone.event.data))}`);
      break;
    case 'event': {
      const e = milestone.event;
      const key = typeof e.data.key === 'string' ? ` ${e.data.key}` : '';
      const reason = typeof e.data.reason === 'string' ? `: ${e.data.reason}` : '';
      say(`  ${e.type}${key}${reason}`);
      break;
    }
  }
}

/**
 * What the demo prints first. `consoleUrl` is the sign-in link, or null when there is no console
 * to open (web/dist not built): then it says so and prints no link, which would answer 404.
 */
export function instructions(consoleUrl: string | null, story: DemoStory, auto = false): string {
  const open =
    consoleUrl === null
      ? [
          'The console is not built, so there is none to open: run npm run build:console, then praxis demo again.',
          ...(auto ? [] : ['(Or add --auto to watch the story play out here, with the approval and the grant given for you.)']),
        ]
      : [
          `Open the console (the token in the address signs you in as operator "demo"):`,
          `  ${consoleUrl}`,
          '',
          'Then:',
          `  1. Approvals: the restart of ${DEMO_UNIT} waits for you. Approve it.`,
          '  2. Watch the plan: the restart runs, but the unit fails again, so the verify step refutes it (about 20 s).',
          '  3. The executor replans to a diagnosis: it asks for temporary access to the journal. Approvals, Capability requests: grant it.',
          '  4. It reads the logs (masked), summarises them and escalates to you: the plan page leads with the note.',
        ];
  return [
    '',
    `Praxis demo: mind "${DEMO_MIND}" wants to restart ${DEMO_UNIT} on a simulated host.`,
    ...open,
    '',
    `Intention ${story.intentionId}, first plan ${story.planId}.`,
    `Store: SQLite file ${resolve(DEMO_DB_PATH)}, created afresh for this demo. Stop with Ctrl-C.`,
    '',
  ].join('\n');
}

export function demoCommand(program: Command): void {
  program
    .command('demo')
    .description(`run the daemon on a fresh demo database (${DEMO_DB_PATH}) with a simulated host and a story to watch`)
    .option('--host <address>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free one (default 7300)')
    .option('--auto', `approve and grant as "${AUTO_OPERATOR}" and exit once the story has ended`)
    .option('--timeout <seconds>', 'with --auto: give up after this long (default 110)')
    .option('--log-level <level>', 'daemon log level (default warn, so the story stays readable)')
    .action(
      action(async (options: DemoOptions) => {
        const timeout = options.timeout === undefined ? 110 : /^\d{1,5}$/.test(options.timeout) ? Number(options.timeout) : NaN;
        if (!(timeout > 0)) throw new InputError([{ code: 'invalid_timeout', path: '--timeout', message: `"${options.timeout}" is not a number of seconds` }]);
        const [{ issueToken }, { createDemoHost }, { loadDaemonConfig }, { claimDemoDatabase, describeProgress, removeDemoDatabase, seedHost, seedStory, watchStory }] = await Promise.all([
          import('../../access/tokens.ts'),
          import('../../daemon/demo-host.ts'),
          import('../../daemon/config.ts'),
          import('../../daemon/demo.ts'),
        ]);
        const flags: DaemonFlags = { host: options.host, port: options.port, db: DEMO_DB_PATH, logLevel: options.logLevel ?? 'warn', tickMs: '1000' };
        // The demo ignores PRAXIS_* store and role settings: it always runs on its own database, with
        // tokens. It does reach people as the daemon would (webhooks), says where it is seen, and
        // plans with the model the environment names (checked as the daemon checks it).
        const { PRAXIS_HOST, PRAXIS_PORT, PRAXIS_WEBHOOK_URL, PRAXIS_WEBHOOK_SECRET, PRAXIS_WEBHOOK_FORMAT, PRAXIS_PUBLIC_URL } = process.env;
        const { PRAXIS_MODEL_BASE_URL, PRAXIS_MODEL, PRAXIS_MODEL_API_KEY, PRAXIS_MODEL_TIMEOUT_MS } = process.env;
        const config = loadDaemonConfig(flags, {
          PRAXIS_HOST,
          PRAXIS_PORT,
          PRAXIS_WEBHOOK_URL,
          PRAXIS_WEBHOOK_SECRET,
          PRAXIS_WEBHOOK_FORMAT,
          PRAXIS_PUBLIC_URL,
          PRAXIS_MODEL_BASE_URL,
          PRAXIS_MODEL,
          PRAXIS_MODEL_API_KEY,
          PRAXIS_MODEL_TIMEOUT_MS,
        });
        const claim = claimDemoDatabase(DEMO_DB_PATH);
        if ('heldBy' in claim) {
          process.stderr.write(
            `praxis demo: a demo is already running on ${resolve(DEMO_DB_PATH)} (process ${claim.heldBy}); its database is left alone.\n` +
              '  Use the console it printed, or stop it (Ctrl-C in its terminal) before starting another.\n',
          );
          return EXIT.refused;
        }
        removeDemoDatabase(DEMO_DB_PATH);

        const demoHost = createDemoHost();
        try {
          seedHost(demoHost.host, new Date());
          let story: DemoStory | null = null;
          const daemon = await (await loadDaemon()).startDaemon({
            config,
            implementations: demoHost.implementations,
            prepare: async (store) => {
              story = await seedStory(store);
            },
          });
          const seeded = story as DemoStory | null;
          if (!seeded) throw new Error('the demo story was not seeded');
          const { token } = await issueToken(daemon.store, { operator: 'demo', role: 'operator', label: 'praxis demo', issuedBy: 'demo' });
          const auto = options.auto ?? false;
          say(instructions(config.consoleDir === null ? null : `${daemon.url}/#token=${token}`, seeded, auto));

          const watch = watchStory(daemon.store, daemon.capabilities, seeded, { auto, tell: (m) => tell(m, auto) });
          if (!auto) {
            watch.finished.then(
              () => say('\nThe story has ended; the daemon keeps running so you can look around. Stop with Ctrl-C.'),
              () => {},
            );
            await stopOnSignal(daemon, () => watch.stop());
            return EXIT.ok;
          }

          let timer: NodeJS.Timeout | undefined;
          const deadline = new Promise<'timeout'>((resolve) => {
            timer = setTimeout(() => resolve('timeout'), timeout * 1000);
          });
          // Ctrl-C (or a SIGTERM) ends the run as giving up does: the daemon stops and the
          // simulated host's temporary directory is removed (the default action left both).
          let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
          const interrupted = new Promise<NodeJS.Signals>((resolve) => {
            onSignal = resolve;
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
          const outcome = await Promise.race([
            watch.finished.then(
              () => 'done' as const,
              (error: Error) => error,
            ),
            deadline,
            interrupted,
          ]);
          clearTimeout(timer);
          process.off('SIGINT', onSignal!);
          process.off('SIGTERM', onSignal!);
          let exit: number = EXIT.ok;
          if (outcome === 'done') say('The story finished: the escalation note is written.');
          else {
            watch.stop();
            const where = await describeProgress(daemon.store, seeded).catch((error: Error) => `(could not read progress: ${error.message})`);
            const why =
              outcome === 'timeout' ? `the story did not finish within ${timeout} s` : outcome instanceof Error ? `following the story failed: ${outcome.message}` : `interrupted (${outcome})`;
            process.stderr.write(`praxis demo: ${why}; ${where}\n`);
            exit = EXIT.refused;
          }
          await daemon.stop(outcome === 'done' ? 'demo finished' : outcome === 'timeout' || outcome instanceof Error ? 'demo gave up' : outcome);
          return exit;
        } finally {
          demoHost.remove();
          claim.release();
        }
      }),
    );
}

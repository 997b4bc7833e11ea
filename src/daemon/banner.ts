// What `praxis serve` says first on a terminal: where it listens, how to sign in, which store it
// uses and its version, in a few lines. The JSON log says the same to a collector.

export interface BannerFacts {
  version: string;
  url: string;
  /** describeStore's words, e.g. `SQLite file /srv/praxis/praxis.db`. */
  store: string;
  /** The store did not exist before this start. */
  created: boolean;
  /** The `--db` value that names the same store to the token command, when it is not the default. */
  dbFlag: string | null;
  /**
   * The console: `served`, `disabled` (`--console none`, or its variable or file setting), or
   * `not_built` (no built console to serve: web/dist has no index.html).
   */
  console: 'served' | 'disabled' | 'not_built';
  anonymousRole: string | null;
  /** What the log lines below will show, e.g. `warnings and errors (--log-level info for more)`. */
  logNote: string;
}

const CONSOLE_LINE: Record<BannerFacts['console'], (url: string) => string> = {
  served: (url) => `${url}/`,
  disabled: () => 'not served (--console none)',
  not_built: () => 'not served: the console is not built (run npm run build:console, then start again)',
};

export function daemonBanner(facts: BannerFacts): string {
  const db = facts.dbFlag ? ` --db ${facts.dbFlag}` : '';
  const signIn = facts.anonymousRole
    ? `requests without a token act as "anonymous" with the role ${facts.anonymousRole}`
    : `praxis token create --operator <your name> --role operator${db}\n              prints a token: paste it into the console, or send it as Authorization: Bearer <token>`;
  const lines = [
    `Praxis ${facts.version} is running.`,
    `  console   ${CONSOLE_LINE[facts.console](facts.url)}`,
    `  API       ${facts.url}/api/v1 (described at ${facts.url}/docs)`,
    `  sign in   ${signIn}`,
    `  store     ${facts.store}${facts.created ? ' (created now)' : ''}`,
    `  log       ${facts.logNote}`,
    '  stop      Ctrl-C',
    '',
  ];
  return `\n${lines.join('\n')}\n`;
}

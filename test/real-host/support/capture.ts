// Prints what systemd 252 really answers to the command shapes Praxis runs, through Praxis's
// real runner, as one JSON object (`scripts/host-root.sh capture` writes it to
// test/host/support/captured/, where the fast tests read it). The real-host suite compares the
// live answers with these files, so both suites parse the same text.

import { CAPTURES } from './captures.ts';
import { runner, settle } from './container.ts';

await settle('praxis-healthy.service', ['active']);
await settle('praxis-flaky.service', ['failed']);
// The healthy unit's last line comes about four seconds after it started.
await new Promise((resolve) => setTimeout(resolve, 5000));

const out: Record<string, unknown> = {};
for (const [name, command] of Object.entries(CAPTURES)) {
  const result = await runner.run(command, { timeoutMs: 10_000 });
  out[name] = { command, ...result };
}
process.stdout.write(`${JSON.stringify(out)}\n`);

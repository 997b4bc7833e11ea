// Helper programs that tests run as processes of their own (racers, crashing executors): run
// compiled when the tests run compiled (scripts/test-build.mjs puts the program's bundle beside
// a link to the source), otherwise from the TypeScript source through tsx. The loader costs a
// process seconds of CPU at start, and some tests start a dozen of them. Without
// --enable-source-maps, as the test files run: the runner maps the stack frames of what it
// reports back to the sources.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The node arguments that run the program at `source` (a `.ts` file's URL). */
export function programArgs(source: URL): string[] {
  const path = fileURLToPath(source);
  const compiled = path.replace(/\.ts$/, '.js');
  return existsSync(compiled) ? [compiled] : ['--import', 'tsx', path];
}

#!/usr/bin/env node
// The `praxis` command: runs the built CLI, dist/bin/main.js (`npm run build`; `npm ci` builds it
// through the `prepare` script). No TypeScript loader is involved at run time.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/bin/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(`praxis: ${main} is missing; run \`npm run build\` in ${fileURLToPath(new URL('..', import.meta.url))}\n`);
  process.exit(3);
}
await import(main);

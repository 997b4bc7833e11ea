// Writes docs/error-codes.md from the catalogue (src/core/error-codes.ts). Run after changing a
// code: `npm run docs:error-codes`. test/core/error-codes.test.ts fails while the doc is stale.

import { writeFileSync } from 'node:fs';
import { errorCodesMarkdown } from '../src/core/error-codes.ts';

const target = new URL('../docs/error-codes.md', import.meta.url);
writeFileSync(target, errorCodesMarkdown());
process.stdout.write(`wrote ${target.pathname}\n`);

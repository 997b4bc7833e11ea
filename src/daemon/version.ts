// The package's version, read once from package.json: two levels up from src/daemon/,
// dist/daemon/ and the command's bundle in dist/bin/ alike.

import { readFileSync } from 'node:fs';

export const PRAXIS_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

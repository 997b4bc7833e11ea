// Runs every test file under test/ with node's test runner. Node 20 does not expand globs
// itself, so the files are listed here. Arguments narrow the run to files containing them.
//
// The tests run with a temporary directory of their own (TMPDIR), which must be empty when they
// end: a test that leaves a file or folder behind fails the run, and the leftovers are named.
// (It also keeps the tests apart from other runs on the same machine.)
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = testFiles('test')
  .map((f) => relative('.', f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const scratch = mkdtempSync(join(tmpdir(), 'praxis-test-run-'));
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TMPDIR: scratch },
});
// tsx keeps its caches there (tsx-<uid>; on Node 22 also Node's node-compile-cache, which tsx
// turns on): the loader's, not a test's.
const leftovers = readdirSync(scratch).filter((name) => !/^tsx-\d+$/.test(name) && name !== 'node-compile-cache');
rmSync(scratch, { recursive: true, force: true });
if (leftovers.length > 0) {
  console.error(`\nthe tests left ${leftovers.length} item(s) in their temporary directory: ${leftovers.sort().join(', ')}`);
  process.exit(result.status || 1);
}
process.exit(result.status ?? 1);

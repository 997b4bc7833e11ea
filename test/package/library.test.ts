// The library entry as another Node program uses it: the example of docs/library.md is
// compiled with tsc against the built package's declarations (dist/index.d.ts, found through
// package.json `exports`) and run with plain node, in a folder of its own where `praxis` is a
// linked dependency. Needs the build (`npm run build`; `npm test` runs it first).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, PRAXIS_DATABASE_URL: '', PRAXIS_DB: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one TypeScript block of docs/library.md. */
function documentedExample(): string {
  const blocks = [...readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)];
  assert.equal(blocks.length, 1, 'docs/library.md has exactly one ts block: the example this test runs');
  return blocks[0]![1]!;
}

describe('praxis as a library', () => {
  let dir = '';
  before(() => {
    assert.ok(existsSync(join(ROOT, 'dist', 'index.js')) && existsSync(join(ROOT, 'dist', 'index.d.ts')), 'dist/ is built (npm run build)');
    dir = mkdtempSync(join(tmpdir(), 'praxis-library-'));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'praxis'), 'dir');
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'embeds-praxis', private: true, type: 'module' }, null, 2)}\n`);
    writeFileSync(join(dir, 'embed.ts'), documentedExample());
    const compilerOptions = {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      outDir: 'out',
    };
    writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, files: ['embed.ts'] }, null, 2)}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exports only what exists, with declarations', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: { '.': { types: string; default: string } } };
    for (const file of [pkg.exports['.'].types, pkg.exports['.'].default]) assert.ok(existsSync(join(ROOT, file)), `${file} exists`);
    const entry = (await import(join(ROOT, pkg.exports['.'].default))) as Record<string, unknown>;
    for (const name of ['openStore', 'migrateToLatest', 'validate', 'parseProposal', 'builtinRegistry', 'CapabilityService', 'Executor', 'submitPlan']) {
      assert.equal(typeof entry[name], 'function', `${name} is exported`);
    }
  });

  it('compiles the documented example against the declarations and runs it to a completed plan', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await run([tsc, '-p', dir], dir);
    assert.equal(compiled.code, 0, `tsc: ${compiled.stdout}${compiled.stderr}`);

    const ran = await run([join(dir, 'out', 'embed.js')], dir);
    assert.equal(ran.code, 0, ran.stderr);
    const lines = ran.stdout.trim().split('\n');
    assert.match(lines[0]!, /^plan [0-9a-f-]{36}: validated$/);
    assert.deepEqual(
      lines.slice(1, 3).map((l) => l.trim()),
      ['P1 completed', 'V1 completed'],
    );
    assert.match(lines[3]!, /^plan [0-9a-f-]{36}: completed; restarts seen by the host: 1$/);
  });
});

// The package as a user gets it: `npm pack` makes the tarball (of the build `npm test` has just
// made: dist/ and web/dist), `npm install -g --prefix` installs it into a temporary prefix from
// npm's cache, and the installed `praxis` runs from there: --version, validate and the demo.
//
// The install skips install scripts (`--ignore-scripts`) and takes the native better-sqlite3
// addon, already built for this Node by `npm ci` for the same version, from this checkout:
// compiling it again from source would take minutes and test node-gyp, not Praxis. Package
// metadata missing from npm's cache is fetched (`--prefer-offline`). A global install does not
// read the project's package-lock.json: the direct dependencies are pinned exactly so that it
// resolves the versions tested here (including the two pinned to stay on Node 20.19).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], cwd, { npm_config_loglevel: 'warn' });

describe('the installable package', () => {
  let dir = '';
  let prefix = '';
  let installed = '';
  let bin = '';
  let install: Ran;
  before(async () => {
    for (const built of ['dist/bin/main.js', 'dist/index.js', 'web/dist/index.html']) assert.ok(existsSync(join(ROOT, built)), `${built} is built (npm run build, npm run build:console)`);
    dir = mkdtempSync(join(tmpdir(), 'praxis-package-'));
    prefix = join(dir, 'prefix');
    const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT);
    assert.equal(packed.code, 0, packed.stderr);
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((f) => f.path);
    assert.ok(
      paths.includes('dist/bin/main.js') && paths.includes('dist/bin/systemctl') && paths.includes('dist/index.d.ts') && paths.includes('web/dist/index.html'),
      'the tarball ships the build and the console',
    );
    assert.ok(!paths.some((p) => p.startsWith('src/') || p.startsWith('test/') || p.endsWith('.tsbuildinfo')), 'no sources, tests or build state');

    install = await npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', join(dir, filename)], dir);
    assert.equal(install.code, 0, install.stderr);
    installed = join(prefix, 'lib', 'node_modules', pkg.name);
    const addon = join('node_modules', 'better-sqlite3', 'build');
    const versionOf = (base: string) => (JSON.parse(readFileSync(join(base, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(versionOf(installed), versionOf(ROOT), 'the installed better-sqlite3 is the one built here');
    cpSync(join(ROOT, addon), join(installed, addon), { recursive: true });
    bin = join(prefix, 'bin', 'praxis');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('installs without engine warnings and without development dependencies', () => {
    assert.doesNotMatch(install.stderr, /EBADENGINE/);
    for (const dev of ['typescript', 'tsx', 'vite', 'react']) assert.ok(!existsSync(join(installed, 'node_modules', dev)), `${dev} is not installed`);
  });

  it('runs praxis --version, validate and the demo from the installed copy', async () => {
    const cwd = mkdtempSync(join(dir, 'work-'));
    const env = { PRAXIS_DATABASE_URL: '', PRAXIS_DB: '' };
    const version = await run(bin, ['--version'], cwd, env);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), pkg.version);

    const example = join(installed, 'examples', 'restart-atlas-worker.json');
    const validate = await run(bin, ['validate', example], cwd, env);
    assert.equal(validate.code, 0, validate.stderr);
    assert.match(validate.stdout, /restart-atlas-worker\.json: valid/);
    const invalid = await run(bin, ['validate', '--json', join(installed, 'examples', 'invalid', 'cycle.yaml')], cwd, env);
    assert.equal(invalid.code, 1);
    assert.equal((JSON.parse(invalid.stdout) as { errors: { code: string }[] }).errors[0]!.code, 'dependency_cycle');

    // The demo's own database goes to .praxis/demo.db under the working directory.
    const demo = await run(bin, ['demo', '--auto', '--port', '0'], cwd, env);
    assert.equal(demo.code, 0, `${demo.stdout}\n${demo.stderr}`);
    assert.match(demo.stdout, /The story finished: the escalation note is written\./);
    assert.ok(existsSync(join(cwd, '.praxis', 'demo.db')));
  });
});

// What `npm test` does before the tests: type-checks the project and the console, builds the
// command (scripts/build.mjs: the tests spawn the built `praxis`), builds the console (the
// browser tests load web/dist), and lints (Biome, and the layer rules of dependency-cruiser).
// The four run at once, as they do not depend on one another:
// in sequence they took about a minute on a 2-core machine, two tsc runs of 20 s of CPU each
// most of it. The build emits without checking types (`--no-check`): the typecheck lane checks
// src/ (with test/, scripts/ and bench/) under the same compiler options, so a type error
// still fails the preparation, once. Each one's output is printed when it ends, whole, so that
// they do not interleave; the exit status is 1 when any of them failed.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
const biome = join(dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** Runs the steps one after the other; resolves to whether all of them succeeded. */
function lane(name, steps) {
  const begun = Date.now();
  let output = '';
  const run = ([command, ...args]) =>
    new Promise((resolve) => {
      const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('error', (error) => {
        output += `${error.message}\n`;
        resolve(false);
      });
      child.on('close', (code) => resolve(code === 0));
    });
  return (async () => {
    let ok = true;
    for (const step of steps) if (!(ok = await run(step))) break;
    const took = `${((Date.now() - begun) / 1000).toFixed(1)} s`;
    console.log(`${ok ? '✔' : '✖'} ${name}  ${took}`);
    if (!ok && output.trim()) console.log(output.trimEnd());
    return ok;
  })();
}

const node = process.execPath;
const results = await Promise.all([
  lane('typecheck (tsc --noEmit)', [[node, tsc, '--noEmit']]),
  lane('build (scripts/build.mjs --no-check)', [[node, 'scripts/build.mjs', '--no-check']]),
  // Formatting and lint with no warnings (biome.jsonc), and every import within its layer (docs/architecture.md).
  lane('lint (biome check, dependency-cruiser)', [
    [node, biome, 'check', '--error-on-warnings'],
    [node, depcruise, 'src', '--config', '.dependency-cruiser.cjs', '--ignore-known', '.dependency-cruiser-known-violations.json', '--output-type', 'err'],
  ]),
  lane('console (tsc --noEmit -p web, vite build)', [
    [node, tsc, '--noEmit', '-p', 'web'],
    [node, vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
  ]),
]);
process.exit(results.every(Boolean) ? 0 : 1);

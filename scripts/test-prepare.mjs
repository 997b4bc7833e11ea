// What `npm test` does besides the tests (scripts/run-tests.mjs --prepare runs it): builds the
// command (scripts/build.mjs: the tests spawn the built `praxis`) and the console (the browser
// tests load web/dist), type-checks the project and the console, and lints (Biome, and the
// layer rules of dependency-cruiser). Run alone (`node scripts/test-prepare.mjs`) it does all
// of it and exits 1 when anything failed.
//
// Only the two builds come before the tests: the tests run what they make. The checks do not
// change what the tests run, so they run beside the tests, at a lower CPU priority (nice 10):
// they take the cores the test files leave idle while they wait (on the demo's verify window,
// on npm, on a browser) instead of holding the tests back. Done first, the whole preparation
// took about 22 s of wall time on 2 cores (the project's tsc most of it, 22 s of CPU), the
// builds alone about 6 s. The build emits without checking types (`--no-check`): the
// typecheck lane checks src/ (with test/, scripts/ and bench/) under the same compiler
// options, so a type error still fails the run, once.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
const biome = join(dirname(require.resolve('@biomejs/biome/package.json')), 'bin', 'biome');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const node = process.execPath;
/** The niceness of the checks that run beside the tests. */
const BESIDE_TESTS = 10;

const children = new Set();

/**
 * Runs the steps one after the other; resolves to `{ name, ok, seconds, output }` once one
 * fails or all have succeeded (`output`: what they printed, stdout and stderr together).
 */
function lane(name, steps, { niceness = 0 } = {}) {
  const begun = Date.now();
  let output = '';
  const run = ([command, ...args]) =>
    new Promise((resolve) => {
      const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
      children.add(child);
      // Set before the child has started its own processes (biome's native binary), which inherit it.
      if (niceness && child.pid) setPriority(child.pid, niceness);
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('error', (error) => {
        output += `${error.message}\n`;
        resolve(false);
      });
      child.on('close', (code) => {
        children.delete(child);
        resolve(code === 0);
      });
    });
  return (async () => {
    let ok = true;
    for (const step of steps) if (!(ok = await run(step))) break;
    return { name, ok, seconds: (Date.now() - begun) / 1000, output: output.trimEnd() };
  })();
}

/** A lane's closing line, with what it printed when it failed. */
export function laneReport(result) {
  const line = `${result.ok ? '✔' : '✖'} ${result.name}  ${result.seconds.toFixed(1)} s`;
  return !result.ok && result.output ? `${line}\n${result.output}` : line;
}

/**
 * Starts the preparation: `built` resolves to the builds' results (the tests wait for it),
 * `checked` to the checks' (they run beside the tests); `onLane` is called with each result as
 * its lane ends. `stop()` ends whatever still runs.
 */
export function prepare(onLane = () => {}) {
  const reported = (promise) =>
    promise.then((result) => {
      onLane(result);
      return result;
    });
  const built = Promise.all([
    reported(lane('build (scripts/build.mjs --no-check)', [[node, 'scripts/build.mjs', '--no-check']])),
    reported(lane('console build (vite build)', [[node, vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']])),
  ]);
  const beside = { niceness: BESIDE_TESTS };
  const checked = Promise.all([
    reported(lane('typecheck (tsc --noEmit)', [[node, tsc, '--noEmit']], beside)),
    reported(lane('console typecheck (tsc --noEmit -p web)', [[node, tsc, '--noEmit', '-p', 'web']], beside)),
    // Formatting and lint with no warnings (biome.jsonc), and every import within its layer (docs/architecture.md).
    reported(
      lane(
        'lint (biome check, dependency-cruiser)',
        [
          [node, biome, 'check', '--error-on-warnings'],
          [node, depcruise, 'src', '--config', '.dependency-cruiser.cjs', '--ignore-known', '.dependency-cruiser-known-violations.json', '--output-type', 'err'],
        ],
        beside,
      ),
    ),
  ]);
  const stop = () => {
    for (const child of children) child.kill('SIGTERM');
  };
  return { built, checked, stop };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { built, checked } = prepare((result) => console.log(laneReport(result)));
  const results = [...(await built), ...(await checked)];
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

// Reads the host capability sources and checks rules that must hold for every code path: no
// shell, no exec, and no command line ever assembled as a string.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const hostDir = join(repo, 'src', 'capabilities', 'host');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The code without its comments (block comments and whole-line // comments), which may talk about commands. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

const sources = files(hostDir).map((path) => ({ path: relative(repo, path), text: code(readFileSync(path, 'utf8')) }));

function offenders(pattern: RegExp): string[] {
  return sources.filter((s) => pattern.test(s.text)).map((s) => s.path);
}

describe('host source rules', () => {
  it('covers the runner, the implementations and the fixture programs', () => {
    const names = sources.map((s) => s.path);
    for (const expected of ['runner.ts', 'commands.ts', 'logs-query.ts', 'simulated/systemctl', 'simulated/journalctl']) {
      assert.ok(
        names.some((n) => n.endsWith(expected)),
        expected,
      );
    }
  });

  it('never asks for a shell', () => {
    assert.deepEqual(offenders(/shell\s*:\s*(?!\s|false\b)/), []);
    assert.deepEqual(offenders(/['"`](?:\/bin\/|\/usr\/bin\/)?(?:ba|da|z)?sh['"`]|\bsh -c\b|\bbash -c\b/), []);
  });

  it('never uses exec/execSync (only the runner spawns, with an argument array)', () => {
    // child_process is imported in one place, for spawn alone (`.exec(` elsewhere is RegExp's).
    assert.deepEqual(offenders(/child_process/), ['src/capabilities/host/runner.ts']);
    const runnerImports = sources.find((s) => s.path.endsWith('runner.ts'))!.text.match(/import .* from 'node:child_process'/g);
    assert.deepEqual(runnerImports, ["import { spawn } from 'node:child_process'"]);
    assert.deepEqual(offenders(/(?<![.\w])exec(?:Sync)?\s*\(/), []);
    assert.deepEqual(offenders(/\bexecFileSync\b|\bspawnSync\b|\bexecSync\b/), []);
    const spawning = offenders(/\bspawn\s*\(|\bexecFile\s*\(/);
    assert.deepEqual(spawning, ['src/capabilities/host/runner.ts']);
    const runner = sources.find((s) => s.path.endsWith('runner.ts'))!.text;
    assert.match(runner, /spawn\(program, argv, \{\s*shell: false,/);
  });

  it('never builds a command line as a string', () => {
    // A program name followed by a space inside a string or template literal would be the
    // start of a command line ("systemctl restart …", `journalctl ${…}`).
    assert.deepEqual(offenders(/[`'"](?:\/usr)?(?:\/bin\/)?(?:systemctl|journalctl) /), []);
    // Nor is an argument vector ever joined back into one string.
    assert.deepEqual(offenders(/argv\.join\(|args\.join\(/), []);
  });

  it('never opens a command line or an environment under /proc', () => {
    assert.deepEqual(offenders(/['"`/]cmdline['"`]|['"`/]environ['"`]/), []);
  });
});

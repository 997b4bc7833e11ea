// Running `praxis` as a real process for the daemon and CLI tests: one-shot commands, and a
// long-running daemon whose JSON log lines are collected as they arrive.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoreConfig } from '../../src/store/config.ts';

export const BIN = fileURLToPath(new URL('../../bin/praxis.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The example restart plan, as an operator or a model submits it. */
export const EXAMPLE_RESTART = join(ROOT, 'examples', 'restart-atlas-worker.json');

/** A fresh copy of the example restart plan (EXAMPLE_RESTART), parsed. */
export function exampleRestart(): Record<string, unknown> {
  return JSON.parse(readFileSync(EXAMPLE_RESTART, 'utf8')) as Record<string, unknown>;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment that points `praxis` at this store and nothing else. */
export function storeEnv(config: StoreConfig): Record<string, string> {
  return config.kind === 'sqlite' ? { PRAXIS_DB: config.path, PRAXIS_DATABASE_URL: '' } : { PRAXIS_DATABASE_URL: config.url, PRAXIS_DB: '' };
}

/** Runs `praxis` to its exit; `input`, when given, is written to its stdin (otherwise stdin is /dev/null). */
export function praxis(args: string[], env: Record<string, string> = {}, options: { cwd?: string; timeoutMs?: number; input?: string } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...env }, stdio: [stdin, 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

export interface RunningDaemon {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  stderr(): string;
  /** Sends the signal and resolves with the exit, and how long it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/** Starts `praxis serve` and resolves once its log says where it listens. */
export function startServe(args: string[], env: Record<string, string>): Promise<RunningDaemon> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--console', 'none', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    let stderr = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`praxis serve did not become ready; stderr: ${stderr}`));
    }, 30_000);
    child.stderr!.on('data', (c) => (stderr += c));
    child.stdout!.on('data', (chunk) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const text = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          line = { unparsed: text };
        }
        lines.push(line);
        if (line.event === 'listening') {
          clearTimeout(timer);
          resolve({
            child,
            url: String(line.url),
            lines,
            stderr: () => stderr,
            async stop(signal = 'SIGTERM') {
              const started = Date.now();
              child.kill(signal);
              const end = await exited;
              return { ...end, ms: Date.now() - started };
            },
          });
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`praxis serve exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

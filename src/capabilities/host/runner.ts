// The one way Praxis runs a program on its host. A runner takes a structured HostCommand,
// never a command line: the allow-list and the argument shape are applied (argvOf) before
// anything is started. The real runner starts the program directly (no shell), with a fixed
// environment, no standard input and no controlling terminal, and stops it when it runs too
// long or prints too much.

import { spawn } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { CapabilityError } from '../implementation.ts';
import { argvOf, operationRule } from './commands.ts';
import type { HostCommand, HostProgram } from './commands.ts';

export type { HostCommand, HostProgram } from './commands.ts';

export interface CommandResult {
  /** The program's exit status; null when it was stopped by a signal (for example at the output cap). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /**
   * True when standard output went past the cap: the program was stopped and the rest discarded.
   * Standard error past its own cap is only cut (its first 64 KiB kept, the rest read and
   * dropped): a chatty program's warnings neither stop it nor make its output look cut.
   */
  truncated: boolean;
}

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

export interface CommandRunner {
  /**
   * Runs one allowed command. Rejects with a CapabilityError: `command_refused` (nothing ran),
   * `timeout` or `aborted` (the program was killed), `command_failed` (it could not be started).
   */
  run(command: HostCommand, options: RunOptions): Promise<CommandResult>;
}

export const DEFAULT_PROGRAMS: Readonly<Record<HostProgram, string>> = Object.freeze({
  systemctl: '/usr/bin/systemctl',
  journalctl: '/usr/bin/journalctl',
});

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;

/**
 * The whole environment a host program gets. Nothing is inherited from the daemon: no
 * credentials, no proxy settings, no locale surprises, no pager, no colours. TZ=UTC makes
 * the timestamps systemctl prints, and the journal times we pass, unambiguous.
 */
export const HOST_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({
  PATH: '/usr/bin:/bin',
  LANG: 'C',
  TZ: 'UTC',
  SYSTEMD_PAGER: 'cat',
  SYSTEMD_PAGERSECURE: '1',
  SYSTEMD_COLORS: '0',
});

/** The one extra variable the simulated host's fixture programs read. */
export const SIMULATED_HOST_VARIABLE = 'PRAXIS_SIM_HOST_DIR';

export interface ExecFileRunnerOptions {
  /** Absolute path of each program; defaults to DEFAULT_PROGRAMS. */
  programs?: Partial<Record<HostProgram, string>>;
  /** Output cap per run in bytes (standard output); defaults to 1 MiB. */
  maxOutputBytes?: number;
  /**
   * Only for the simulated host (tests, `praxis demo`): the state directory its fixture
   * programs keep units and journal in. Never set on a real host.
   */
  simulatedHostDir?: string;
}

function isReadOnly(command: HostCommand): boolean {
  return operationRule(command).readOnly;
}

function operationName(command: HostCommand): string {
  return `${command.program} ${command.operation}`;
}

/** The real runner: spawns the program itself, without a shell. */
export function execFileRunner(options: ExecFileRunnerOptions = {}): CommandRunner {
  const programs: Record<HostProgram, string> = { ...DEFAULT_PROGRAMS, ...options.programs };
  for (const [name, path] of Object.entries(programs)) {
    if (typeof path !== 'string' || !isAbsolute(path)) throw new Error(`the path of ${name} must be absolute`);
  }
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const environment: Record<string, string> = { ...HOST_ENVIRONMENT };
  if (options.simulatedHostDir !== undefined) {
    if (!isAbsolute(options.simulatedHostDir)) throw new Error('the simulated host directory must be absolute');
    environment[SIMULATED_HOST_VARIABLE] = options.simulatedHostDir;
  }
  Object.freeze(environment);

  return {
    async run(command, { signal, timeoutMs }) {
      // Shape first: a refused command throws here, before any process exists.
      const argv = argvOf(command);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError('timeoutMs must be a positive number');
      const program = programs[command.program];
      const readOnly = isReadOnly(command);
      if (signal?.aborted) {
        throw new CapabilityError('aborted', `the ${operationName(command)} operation was cancelled before it started`, readOnly);
      }
      return runProgram(program, argv, environment, { signal, timeoutMs, maxOutput, readOnly, name: operationName(command) });
    },
  };
}

interface Limits {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  maxOutput: number;
  readOnly: boolean;
  name: string;
}

function runProgram(program: string, argv: string[], env: Record<string, string>, limits: Limits): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, argv, {
      shell: false,
      env,
      cwd: '/',
      // No standard input, and a new session: the program has no terminal to prompt on.
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });

    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let truncated = false;
    let stopped: 'timeout' | 'aborted' | null = null;
    let exited = false;
    let settled = false;

    const kill = () => {
      if (child.pid !== undefined) {
        try {
          // The whole process group: anything the program started goes too, even when the
          // program itself has already exited and left a child holding the pipes open.
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          if (!exited) child.kill('SIGKILL');
        }
      }
      // Stop reading either way, so the run ends even if something still holds the pipes.
      child.stdout.destroy();
      child.stderr.destroy();
    };

    /** Keeps `chunk` up to `cap` bytes in all; true when some of it did not fit. */
    const keep = (chunks: Buffer[], used: number, cap: number, chunk: Buffer): boolean => {
      const room = cap - used;
      if (chunk.length <= room) {
        chunks.push(chunk);
        return false;
      }
      if (room > 0) chunks.push(chunk.subarray(0, room));
      return true;
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (keep(stdout, stdoutBytes, limits.maxOutput, chunk)) {
        truncated = true;
        stdoutBytes = limits.maxOutput;
        kill();
      } else stdoutBytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const cap = Math.min(MAX_STDERR_BYTES, limits.maxOutput);
      if (stderrBytes >= cap) return;
      stderrBytes = keep(stderr, stderrBytes, cap, chunk) ? cap : stderrBytes + chunk.length;
    });

    const timer = setTimeout(() => {
      stopped = 'timeout';
      kill();
    }, limits.timeoutMs);
    const onAbort = () => {
      stopped ??= 'aborted';
      kill();
    };
    limits.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      outcome();
    };

    child.on('exit', () => {
      exited = true;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      exited = true;
      finish(() => reject(new CapabilityError('command_failed', `the ${limits.name} operation could not start (${error.code ?? error.message})`, limits.readOnly)));
    });
    child.on('close', (code: number | null) => {
      finish(() => {
        if (stopped === 'timeout') {
          reject(new CapabilityError('timeout', `the ${limits.name} operation did not finish within ${limits.timeoutMs} ms and was stopped`, limits.readOnly));
        } else if (stopped === 'aborted') {
          reject(new CapabilityError('aborted', `the ${limits.name} operation was cancelled and stopped`, limits.readOnly));
        } else {
          resolve({
            exitCode: code,
            stdout: Buffer.concat(stdout).toString('utf8'),
            stderr: Buffer.concat(stderr).toString('utf8'),
            truncated,
          });
        }
      });
    });
  });
}

export interface RecordedCommand {
  command: HostCommand;
  argv: string[];
}

export type FakeHandler = (command: HostCommand, argv: string[]) => CommandResult | Promise<CommandResult>;

export interface FakeRunner extends CommandRunner {
  /** Every command that passed the allow-list, in order, with the argument vector it implies. */
  readonly calls: RecordedCommand[];
}

/**
 * A runner for tests: applies the same allow-list and argument shapes as the real one, then
 * asks `handler` for the result instead of starting a process.
 */
export function fakeRunner(handler: FakeHandler): FakeRunner {
  const calls: RecordedCommand[] = [];
  return {
    calls,
    async run(command, { signal }) {
      const argv = argvOf(command);
      if (signal?.aborted) throw new CapabilityError('aborted', `the ${operationName(command)} operation was cancelled before it started`, isReadOnly(command));
      calls.push({ command: structuredClone(command), argv });
      return handler(command, argv);
    },
  };
}

/** A result helper for fake handlers. */
export function commandResult(stdout: string, exitCode = 0, stderr = ''): CommandResult {
  return { exitCode, stdout, stderr, truncated: false };
}

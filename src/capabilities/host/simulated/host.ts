// A simulated host: a state directory plus the fixture `systemctl` and `journalctl` programs
// beside this file, and pages served on loopback for the browser capabilities. Tests use it to drive the real runner end to end; `praxis demo` can use it
// to show restarts and log reads without touching a real unit. It is never the default: a
// runner talks to it only when given its directory explicitly.

import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostProgram } from '../commands.ts';
import { execFileRunner } from '../runner.ts';
import type { CommandRunner, ExecFileRunnerOptions } from '../runner.ts';
import { checkUnitName } from '../../unit-name.ts';

/** Absolute paths of the fixture programs. */
export const SIMULATED_PROGRAMS: Readonly<Record<HostProgram, string>> = Object.freeze({
  systemctl: fileURLToPath(new URL('./systemctl', import.meta.url)),
  journalctl: fileURLToPath(new URL('./journalctl', import.meta.url)),
});

export interface SimulatedUnit {
  load_state?: 'loaded' | 'not-found' | 'masked' | 'error';
  active_state: 'active' | 'inactive' | 'failed' | 'activating' | 'deactivating' | 'reloading';
  sub_state: string;
  main_pid?: number;
  /** ISO time the unit entered its current state. */
  since?: string;
  /** What a restart leads to, and after how many seconds (default: active, at once). */
  restart?: { outcome?: 'active' | 'failed'; delay_seconds?: number };
  /** systemd's SuccessAction= (`reboot`, `poweroff`, …); systemctl show prints `none` without it. */
  success_action?: string;
  /** The units its activation starts, as systemctl show's Triggers= lists them. */
  triggers?: string[];
  /**
   * The units its start pulls in, as systemctl show lists them. A loaded unit also requires
   * sysinit.target (and a service or socket system.slice), as systemd adds by default, unless
   * `default_dependencies` is false.
   */
  requires?: string[];
  wants?: string[];
  binds_to?: string[];
  upholds?: string[];
  on_success?: string[];
  default_dependencies?: boolean;
}

export interface SimulatedJournalEntry {
  /** ISO time of the entry. */
  time: string;
  /** May span lines. */
  message: string;
  /** 0 (emerg) to 7 (debug); default 6 (info). */
  priority?: number;
  /** The syslog identifier shown before the PID; default the unit's name without its type. */
  identifier?: string;
  pid?: number;
}

/** Scripted misbehaviour of one fixture program, applied before it does its real work. */
export interface SimulatedBehaviour {
  /** Sleep this long first (to exercise the runner's timeout). */
  sleep_seconds?: number;
  /** Print this many bytes of filler first (to exercise the output cap). */
  flood_bytes?: number;
  /** Print this many bytes of filler on standard error first, then do the work (a chatty program). */
  stderr_flood_bytes?: number;
  /** Print `ENV=<json>` of the environment the program received. */
  print_env?: boolean;
  /** Exit with this status (after printing `stderr`) instead of doing the work. */
  exit_code?: number;
  stderr?: string;
}

export interface SimulatedCall {
  program: HostProgram;
  argv: string[];
}

function unitFile(name: string): string {
  const problem = checkUnitName(name);
  if (problem !== null) throw new Error(`simulated host: ${problem}`);
  return name;
}

/** The only address the simulated host's pages are served on; fetch options must allow it. */
export const SIMULATED_PAGE_ADDRESS = '127.0.0.1';

export class SimulatedHost {
  readonly dir: string;
  private readonly pages = new Map<string, string>();
  private pageServer: Promise<Server> | null = null;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** A fresh state directory (a new temporary one unless `dir` is given). */
  static create(dir?: string): SimulatedHost {
    const root = dir ?? mkdtempSync(join(tmpdir(), 'praxis-simhost-'));
    for (const sub of ['units', 'journal', 'behaviour']) mkdirSync(join(root, sub), { recursive: true });
    return new SimulatedHost(root);
  }

  setUnit(name: string, unit: SimulatedUnit): this {
    writeFileSync(join(this.dir, 'units', `${unitFile(name)}.json`), `${JSON.stringify(unit, null, 2)}\n`);
    return this;
  }

  /**
   * Makes `name` an alias of `unit`, as a symlink in /etc/systemd/system does: systemctl shows
   * and restarts `unit` for it, and prints `Id=<unit>`.
   */
  setAlias(name: string, unit: string): this {
    writeFileSync(join(this.dir, 'units', `${unitFile(name)}.json`), `${JSON.stringify({ alias_of: unitFile(unit) }, null, 2)}\n`);
    return this;
  }

  /** The unit's stored state as the fixture keeps it (including a pending restart), if any. */
  unit(name: string): (SimulatedUnit & { restarts?: number; pending?: Record<string, unknown> }) | undefined {
    const file = join(this.dir, 'units', `${unitFile(name)}.json`);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  }

  addJournal(unit: string, entries: SimulatedJournalEntry[]): this {
    const lines = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    appendFileSync(join(this.dir, 'journal', `${unitFile(unit)}.jsonl`), lines);
    return this;
  }

  /** Fixes the fixture programs' "now"; null returns them to the real clock. */
  setClock(at: Date | string | null): this {
    const file = join(this.dir, 'clock');
    if (at === null) rmSync(file, { force: true });
    else writeFileSync(file, `${new Date(at).toISOString()}\n`);
    return this;
  }

  /** Moves a fixed clock forward; starts from the real time if none was set. */
  advanceClock(seconds: number): this {
    const file = join(this.dir, 'clock');
    const from = existsSync(file) ? new Date(readFileSync(file, 'utf8').trim()) : new Date();
    return this.setClock(new Date(from.getTime() + seconds * 1000));
  }

  setBehaviour(program: HostProgram, behaviour: SimulatedBehaviour | null): this {
    const file = join(this.dir, 'behaviour', `${program}.json`);
    if (behaviour === null) rmSync(file, { force: true });
    else writeFileSync(file, JSON.stringify(behaviour));
    return this;
  }

  setHostname(name: string): this {
    writeFileSync(join(this.dir, 'hostname'), `${name}\n`);
    return this;
  }

  /** Every invocation the fixture programs received, in order (refused ones included). */
  calls(): SimulatedCall[] {
    const file = join(this.dir, 'calls.log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as SimulatedCall);
  }

  /** The PID the named fixture program last ran with (written before any misbehaviour). */
  lastPid(program: HostProgram): number | undefined {
    const file = join(this.dir, `${program}.pid`);
    return existsSync(file) ? Number(readFileSync(file, 'utf8')) : undefined;
  }

  /** A real execFileRunner pointed at the fixture programs and this state directory. */
  runner(options: Omit<ExecFileRunnerOptions, 'programs' | 'simulatedHostDir'> = {}): CommandRunner {
    return execFileRunner({ ...options, programs: SIMULATED_PROGRAMS, simulatedHostDir: this.dir });
  }

  /**
   * A small scripted estate for demonstrations: a healthy web server, an API that comes back
   * after a slow start, a worker that fails after every restart, and logs that need masking.
   */
  seedExample(now: Date = new Date()): this {
    const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
    this.setUnit('nginx.service', { active_state: 'active', sub_state: 'running', main_pid: 812, since: ago(86_400) });
    this.setUnit('payments-api.service', {
      active_state: 'failed',
      sub_state: 'failed',
      main_pid: 0,
      since: ago(300),
      restart: { outcome: 'active', delay_seconds: 5 },
    });
    this.setUnit('report-worker.service', {
      active_state: 'active',
      sub_state: 'running',
      main_pid: 1204,
      since: ago(7200),
      restart: { outcome: 'failed', delay_seconds: 2 },
    });
    this.addJournal('payments-api.service', [
      { time: ago(420), message: 'listening on 0.0.0.0:8443', priority: 6 },
      { time: ago(360), message: 'payment 7f3a for alice@example.com from 203.0.113.7 accepted', priority: 6 },
      { time: ago(330), message: 'upstream auth failed: Authorization: Bearer sk_test_51Hq2abcdEFGH1234ijkl', priority: 4 },
      { time: ago(310), message: 'db connect postgres://payments:hunter2@10.0.4.12:5432/payments refused', priority: 3 },
      { time: ago(300), message: 'fatal: connection pool exhausted, exiting', priority: 2 },
    ]);
    this.addJournal('nginx.service', [{ time: ago(60), message: '2001:db8::7 - - "GET /health HTTP/1.1" 200 2 "-" "kube-probe/1.29"', priority: 6 }]);
    return this;
  }

  /**
   * Serves `html` from a loopback HTTP server of this host's and returns its URL. The browser
   * capabilities refuse loopback addresses unless their fetch options allow
   * SIMULATED_PAGE_ADDRESS, which only tests and demonstrations pass.
   */
  async servePage(html: string): Promise<string> {
    const path = `/page-${this.pages.size + 1}`;
    this.pages.set(path, html);
    this.pageServer ??= new Promise((resolve, reject) => {
      const server = createServer((request, response) => {
        const page = this.pages.get(request.url ?? '');
        response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(page ?? 'not found');
      });
      server.once('error', reject);
      // A test that forgets remove() must still be able to exit.
      server.unref();
      server.listen(0, SIMULATED_PAGE_ADDRESS, () => resolve(server));
    });
    const { port } = (await this.pageServer).address() as AddressInfo;
    return `http://${SIMULATED_PAGE_ADDRESS}:${port}${path}`;
  }

  /** Deletes the state directory and stops serving pages. */
  remove(): void {
    void this.pageServer?.then((server) => server.close());
    rmSync(this.dir, { recursive: true, force: true });
  }
}

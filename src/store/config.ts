// Where the store lives. Precedence, strongest first: the `--db` flag, PRAXIS_DATABASE_URL
// (PostgreSQL), PRAXIS_DB (an SQLite file), then ./.praxis/praxis.db.

import { InputError } from '../core/errors.ts';

export interface SqliteStoreConfig {
  kind: 'sqlite';
  /** A file path (its directory is created on open) or `:memory:`. */
  path: string;
}

export interface PostgresStoreConfig {
  kind: 'postgres';
  url: string;
  /** A schema to hold every table instead of the connection's default (usually `public`). */
  schema?: string;
  /**
   * Whether fixed-shape statements are sent as named prepared statements (pg-statements.ts); on
   * unless the URL says `praxis_prepared_statements=off`, for a pooler that cannot keep them (a
   * PgBouncer before 1.21 in transaction mode hands each transaction another server session).
   */
  namedStatements?: boolean;
}

export type StoreConfig = SqliteStoreConfig | PostgresStoreConfig;

export const DEFAULT_SQLITE_PATH = './.praxis/praxis.db';

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function isPostgresUrl(value: string): boolean {
  return POSTGRES_URL.test(value);
}

export function resolveStoreConfig(flags: { db?: string | undefined }, env: Record<string, string | undefined> = process.env): StoreConfig {
  if (flags.db !== undefined) return fromLocation(flags.db, '--db');
  const url = env.PRAXIS_DATABASE_URL;
  if (url !== undefined && url !== '') {
    if (!isPostgresUrl(url)) {
      throw invalid('PRAXIS_DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
    return postgresConfig(url, 'PRAXIS_DATABASE_URL');
  }
  const path = env.PRAXIS_DB;
  if (path !== undefined && path !== '') return fromLocation(path, 'PRAXIS_DB');
  return { kind: 'sqlite', path: DEFAULT_SQLITE_PATH };
}

/** A PostgreSQL URL or an SQLite file path, as given on the command line or in PRAXIS_DB. */
function fromLocation(value: string, source: string): StoreConfig {
  if (value.trim() === '') throw invalid(source, 'must be an SQLite file path or a postgres:// URL, not empty');
  if (isPostgresUrl(value)) return postgresConfig(value, source);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    throw invalid(source, `unsupported database URL scheme in "${redact(value)}": use postgres://, postgresql:// or a file path`);
  }
  if (value.includes('\0')) throw invalid(source, 'a file path must not contain the NUL character');
  return { kind: 'sqlite', path: value };
}

/** The URL parameter that turns named prepared statements off; Praxis's own, taken out of the URL pg is given. */
export const PREPARED_STATEMENTS_PARAMETER = 'praxis_prepared_statements';

function postgresConfig(url: string, source: string): PostgresStoreConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
    if (!parsed.hostname && !parsed.searchParams.get('host')) throw new Error('no host');
  } catch {
    throw invalid(source, `not a valid PostgreSQL URL: "${redact(url)}"`);
  }
  const prepared = parsed.searchParams.get(PREPARED_STATEMENTS_PARAMETER);
  if (prepared === null) return { kind: 'postgres', url };
  if (prepared !== 'on' && prepared !== 'off') throw invalid(source, `${PREPARED_STATEMENTS_PARAMETER} must be on or off, not "${prepared}"`);
  parsed.searchParams.delete(PREPARED_STATEMENTS_PARAMETER);
  return { kind: 'postgres', url: parsed.toString(), namedStatements: prepared === 'on' };
}

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw invalid('schema', `"${schema}" is not a plain lower-case SQL identifier`);
  }
}

/**
 * A database URL fit to print: the password of its user information (everything after the
 * first `:` up to the last `@`, which may hold more `@`s, and `/`, `?` or `#`) and of its `password` or
 * `sslpassword` query parameters replaced by `***`. Never echo a password back in a message.
 */
export function redact(url: string): string {
  return (
    url
      // Up to the last @ of the whole text, across / ? and #: a password that holds one unencoded
      // is exactly what makes a URL fail to parse, and its message must not show it.
      .replace(/^([a-z][a-z0-9+.-]*:\/\/)(.*)@/i, (whole, scheme: string, userinfo: string) => {
        const colon = userinfo.indexOf(':');
        return colon < 0 ? whole : `${scheme}${userinfo.slice(0, colon)}:***@`;
      })
      .replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***')
  );
}

function invalid(path: string, message: string): InputError {
  return new InputError([{ code: 'invalid_store_config', message, path }]);
}

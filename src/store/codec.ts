// The one place that knows how each store represents a value. Repositories encode every value
// they write and decode every value they read through a Codec, so their code is the same for
// both stores and the records they return are identical: timestamps as Date, JSON parsed,
// arrays as string[], booleans as boolean, counters as number.

import { sortedJson } from './sorted-json.ts';

export type StoreKind = 'sqlite' | 'postgres';

export interface Codec {
  readonly kind: StoreKind;
  /**
   * Always a JSON string: the pg driver would turn a bare JS array into a PostgreSQL array.
   * Deterministic: object keys are sorted, so equal values give identical text.
   */
  json(value: unknown): string;
  jsonOrNull(value: unknown): string | null;
  textArray(values: readonly string[]): string[] | string;
  bool(value: boolean): boolean | number;
  /** ISO-8601 text; on SQLite it compares correctly as text, on PostgreSQL it casts to timestamptz. */
  time(at: Date): string;
  timeOrNull(at: Date | null | undefined): string | null;

  readJson<T>(raw: unknown): T;
  readJsonOrNull<T>(raw: unknown): T | null;
  readTextArray(raw: unknown): string[];
  readBool(raw: unknown): boolean;
  readTime(raw: unknown): Date;
  readTimeOrNull(raw: unknown): Date | null;
  /** int8 comes back from pg as a string; SQLite may hand back a bigint. */
  readInt(raw: unknown): number;
}

/** \u0000 preceded by an even number of backslashes (none included): an escape, not escaped text. */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/** Keys sorted at every depth (sorted-json.ts), so equal values always give the same text. */
function encodeJson(value: unknown): string {
  const text = sortedJson(value);
  if (text === undefined) throw new TypeError(`cannot store ${typeof value} as JSON`);
  // PostgreSQL's jsonb refuses the NUL character while SQLite would keep it; refusing it on both
  // keeps the two stores behaving the same.
  // A NUL is written as \u0000 with an unescaped backslash; text such as the six characters
  // "\u0000" inside a string (a regular expression in a schema, say) is written as \\u0000 and
  // is fine on both stores.
  // The plain search first: most texts hold no escape of the kind at all.
  if (text.includes('\\u0000') && ESCAPED_NUL.test(text)) throw new TypeError('JSON text must not contain the NUL character');
  return text;
}

function readTime(raw: unknown): Date {
  const at = raw instanceof Date ? new Date(raw.getTime()) : new Date(String(raw));
  if (Number.isNaN(at.getTime())) throw new TypeError(`stored timestamp is not a time: ${String(raw)}`);
  return at;
}

function readInt(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isSafeInteger(n)) throw new TypeError(`stored integer is out of range: ${String(raw)}`);
  return n;
}

const shared = {
  json: encodeJson,
  jsonOrNull: (value: unknown) => (value === null || value === undefined ? null : encodeJson(value)),
  time: (at: Date) => at.toISOString(),
  timeOrNull: (at: Date | null | undefined) => (at ? at.toISOString() : null),
  readBool: (raw: unknown) => Boolean(raw),
  readTime,
  readTimeOrNull: (raw: unknown) => (raw === null || raw === undefined ? null : readTime(raw)),
  readInt,
};

/** pg already parses jsonb and text[]; re-parsing would corrupt a stored JSON string value. */
const postgresCodec: Codec = {
  ...shared,
  kind: 'postgres',
  textArray: (values) => [...values],
  bool: (value) => value,
  readJson: <T>(raw: unknown) => raw as T,
  readJsonOrNull: <T>(raw: unknown) => (raw === null || raw === undefined ? null : (raw as T)),
  readTextArray: (raw) => (Array.isArray(raw) ? raw.map(String) : []),
};

/** better-sqlite3 binds only numbers, strings, bigints, buffers and null. */
const sqliteCodec: Codec = {
  ...shared,
  kind: 'sqlite',
  textArray: (values) => encodeJson([...values]),
  bool: (value) => (value ? 1 : 0),
  readJson: <T>(raw: unknown) => JSON.parse(String(raw)) as T,
  readJsonOrNull: <T>(raw: unknown) => (raw === null || raw === undefined ? null : (JSON.parse(String(raw)) as T)),
  readTextArray: (raw) => {
    const parsed: unknown = JSON.parse(String(raw));
    return Array.isArray(parsed) ? parsed.map(String) : [];
  },
};

export function codecFor(kind: StoreKind): Codec {
  return kind === 'postgres' ? postgresCodec : sqliteCodec;
}

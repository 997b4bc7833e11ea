// Keyset pages. A cursor is the key of the last item handed out, wrapped so that callers treat
// it as opaque: ids for most lists (time-ordered UUID v7, so new rows never shift a page),
// names for minds, the sequence number for event timelines.

import { isId } from '../core/ids.ts';
import { invalid } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** `before`: the seq of the last event of a page read newest first; the next page is older. */
type CursorKind = 'id' | 'name' | 'seq' | 'before';

/** The largest event seq a cursor carries (fifteen digits; a seq is a safe integer long before that). */
export const MAX_CURSOR_SEQ = 999_999_999_999_999;

export function encodeCursor(kind: CursorKind, key: string | number): string {
  return Buffer.from(`${kind}:${key}`, 'utf8').toString('base64url');
}

/** The key inside a cursor of the expected kind; a cursor from another list or a forged one is refused. */
export function decodeCursor(kind: 'id' | 'name', cursor: string): string;
export function decodeCursor(kind: 'seq' | 'before', cursor: string): number;
export function decodeCursor(kind: CursorKind, cursor: string): string | number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = `${kind}:`;
  const key = text.startsWith(prefix) ? text.slice(prefix.length) : null;
  if (key !== null) {
    if (kind === 'id' && isId(key)) return key;
    // A name as lists hand them out: never a control character, which PostgreSQL refuses (NUL) in a
    // bound text, so a forged cursor would be a 500 there and a page on SQLite.
    if (kind === 'name' && key.length > 0 && key.length <= 255 && !/[\u0000-\u001f\u007f]/.test(key)) return key;
    if ((kind === 'seq' || kind === 'before') && /^[0-9]{1,15}$/.test(key)) return Number(key);
  }
  throw invalid('invalid_cursor', 'cursor', 'the cursor does not belong to this list; start again without one');
}

export function pageSize(request: PageRequest): number {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw invalid('invalid_limit', 'limit', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  return limit;
}

/**
 * Turns rows fetched with one extra (limit + 1) into a page: the extra row only tells that
 * another page exists, and the cursor is the key of the last row handed out.
 */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => string, kind: CursorKind): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last !== undefined ? encodeCursor(kind, keyOf(last)) : null };
}

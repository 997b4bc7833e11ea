// How each store spells the few types that differ, so one migration builds both schemas.

import { sql, type ColumnDataType, type Expression, type RawBuilder } from 'kysely';
import type { StoreKind } from '../codec.ts';

type DataType = ColumnDataType | Expression<unknown>;

export interface ColumnTypes {
  id: DataType;
  json: DataType;
  textArray: DataType;
  bool: DataType;
  time: DataType;
  /** 8-byte float on both: PostgreSQL's `real` is 4 bytes and would round confidences. */
  float: DataType;
  emptyTextArray: RawBuilder<unknown>;
  no: RawBuilder<unknown>;
  /** Only for compatibility with hand-written inserts; repositories always write the clock's time. */
  now: RawBuilder<unknown>;
}

const postgres: ColumnTypes = {
  id: 'uuid',
  json: 'jsonb',
  textArray: sql`text[]`,
  bool: 'boolean',
  time: 'timestamptz',
  float: 'double precision',
  emptyTextArray: sql`'{}'`,
  no: sql`false`,
  now: sql`now()`,
};

const sqlite: ColumnTypes = {
  id: 'text',
  json: 'text',
  textArray: 'text',
  bool: 'integer',
  time: 'text',
  float: 'real',
  emptyTextArray: sql`'[]'`,
  no: sql`0`,
  // The same ISO-8601 shape as Date.toISOString(), so defaulted and written values compare.
  now: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`,
};

export function columnTypesFor(kind: StoreKind): ColumnTypes {
  return kind === 'postgres' ? postgres : sqlite;
}

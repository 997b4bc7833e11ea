// Queries built and compiled once, then run with new values. Building a Kysely query (its
// builders, then the compiler's walk over the tree) costs a quarter of a millisecond for a
// statement of several subqueries, paid again on every call although only the values change:
// on the path from an operator's approval to its claim that is time nobody waits for usefully.
// A template builds its query once per dialect with placeholder values, keeps the SQL text, and
// finds where each value went among the parameters; a call only puts the values in their places.

import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { StoreKind } from './codec.ts';
import type { Database } from './schema.ts';

const PLACEHOLDER = '\u0000praxis-template-value:';

/** Where each parameter of the compiled text comes from: a value given to the call, or a constant of the query. */
type Slot = { arg: number } | { constant: unknown };

/** A template's text in one dialect, where its parameters come from, and how many values a call gives. */
interface Compiled {
  sql: string;
  slots: Slot[];
  arity: number;
}

/**
 * Builds a template's query. `args` are stand-ins for the values a call gives (strings, whatever
 * their declared types), to be passed into the query unchanged; `kind` is the store's.
 */
type Build<Args extends readonly unknown[], Row> = (db: Kysely<Database>, args: Args, kind: StoreKind) => Compilable<Row>;

export class QueryTemplate<Args extends readonly unknown[], Row> {
  readonly #build: Build<Args, Row>;
  readonly #compiled = new Map<StoreKind, Compiled>();

  /**
   * `build` must pass each of its arguments into the query as a value, unchanged (not encoded,
   * not spliced into the SQL text); it may use one several times. The first compile checks that
   * and throws if it does not hold. Everything else in the query is fixed by that first compile:
   * `build` must not choose the query's shape from its arguments (a branch on a null host, say)
   * nor compute other values from them or from the clock; such a query is not a template.
   */
  constructor(build: Build<Args, Row>) {
    this.#build = build;
  }

  /** The query for `args`, in the dialect of `db` (a store of `kind`). */
  compile(db: Kysely<Database>, kind: StoreKind, args: Args): CompiledQuery<Row> {
    const compiled = this.#compiled.get(kind) ?? this.#compileOnce(db, kind, args.length);
    if (args.length !== compiled.arity) throw new Error(`a query template compiled for ${compiled.arity} values was given ${args.length}`);
    const parameters = compiled.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.constant));
    return CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<Row>;
  }

  #compileOnce(db: Kysely<Database>, kind: StoreKind, arity: number): Compiled {
    const placeholders = Array.from({ length: arity }, (_, i) => `${PLACEHOLDER}${i}`) as unknown as Args;
    const { sql, parameters } = this.#build(db, placeholders, kind).compile();
    if (sql.includes(PLACEHOLDER)) throw new Error('a query template spliced a value into its SQL text');
    const slots = parameters.map((value): Slot => {
      if (typeof value === 'string' && value.startsWith(PLACEHOLDER)) {
        const arg = Number(value.slice(PLACEHOLDER.length));
        if (!Number.isInteger(arg) || arg >= arity) throw new Error('a query template changed a value it was given');
        return { arg };
      }
      if (typeof value === 'string' && value.includes(PLACEHOLDER)) throw new Error('a query template changed a value it was given');
      return { constant: value };
    });
    for (let arg = 0; arg < arity; arg += 1) {
      if (!slots.some((slot) => 'arg' in slot && slot.arg === arg)) throw new Error(`a query template left out value ${arg}`);
    }
    const compiled = { sql, slots, arity };
    this.#compiled.set(kind, compiled);
    return compiled;
  }
}

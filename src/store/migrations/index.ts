// Migrations live in code, listed by name: nothing is discovered on disk, so the set that runs
// is exactly the set that was built and tested. They only go forward; a mistake is corrected by
// a new migration, never by editing or reverting an applied one.

import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { StoreKind } from '../codec.ts';
import type { Database } from '../schema.ts';
import { initialSchema } from './0001_initial.ts';
import { mindAndModelRole } from './0002_mind_and_model_role.ts';
import { executorIndexes } from './0003_executor.ts';
import { accessTokens } from './0004_access_tokens.ts';
import { authorship } from './0005_authorship.ts';
import { claimant } from './0006_claimant.ts';
import { auditAndKeyedApprovals } from './0007_audit_and_keyed_approvals.ts';
import { wants } from './0008_wants.ts';
import { eventConsumers } from './0009_event_consumers.ts';
import { planPauses } from './0010_plan_pauses.ts';
import { approvalAmendments } from './0011_approval_amendments.ts';
import { abortAndFindings } from './0012_abort_and_findings.ts';
import { eventTypeEqualities } from './0013_event_type_equalities.ts';
import { auditIndex } from './0014_audit_index.ts';
import { partialEventIndexes } from './0015_event_indexes_partial.ts';
import { stepCheckEqualities } from './0016_step_check_equalities.ts';
import { dueOrder } from './0017_due_order.ts';
import { approvalClaimant } from './0018_approval_claimant.ts';
import { stepHost } from './0019_step_host.ts';
import { startableOrder } from './0020_startable_order.ts';
import { callRows } from './0021_call_rows.ts';

export const MIGRATION_TABLE = 'praxis_migrations';
export const MIGRATION_LOCK_TABLE = 'praxis_migration_lock';

/** The migration that creates the schema: applied only to a database that held no Praxis store. */
export const FIRST_MIGRATION = '0001_initial';

/** Names sort in the order they must run. */
export function migrationsFor(kind: StoreKind): Record<string, Migration> {
  return {
    [FIRST_MIGRATION]: initialSchema(kind),
    '0002_mind_and_model_role': mindAndModelRole(kind),
    '0003_executor': executorIndexes(kind),
    '0004_access_tokens': accessTokens(kind),
    '0005_authorship': authorship(kind),
    '0006_claimant': claimant(kind),
    '0007_audit_and_keyed_approvals': auditAndKeyedApprovals(kind),
    '0008_wants': wants(kind),
    '0009_event_consumers': eventConsumers(kind),
    '0010_plan_pauses': planPauses(kind),
    '0011_approval_amendments': approvalAmendments(kind),
    '0012_abort_and_findings': abortAndFindings(kind),
    '0013_event_type_equalities': eventTypeEqualities(kind),
    '0014_audit_index': auditIndex(kind),
    '0015_event_indexes_partial': partialEventIndexes(kind),
    '0016_step_check_equalities': stepCheckEqualities(kind),
    '0017_due_order': dueOrder(kind),
    '0018_approval_claimant': approvalClaimant(kind),
    '0019_step_host': stepHost(kind),
    '0020_startable_order': startableOrder(),
    '0021_call_rows': callRows(kind),
  };
}

class InCodeMigrations implements MigrationProvider {
  readonly #kind: StoreKind;
  constructor(kind: StoreKind) {
    this.#kind = kind;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrationsFor(this.#kind);
  }
}

export function createMigrator(db: Kysely<Database>, kind: StoreKind, schema?: string): Migrator {
  return new Migrator({
    db,
    provider: new InCodeMigrations(kind),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/**
 * The names of the migrations applied to the database, in order; undefined when it has no
 * migration table yet (the query fails, and nothing else happened in it). Any other failure is
 * thrown: a PostgreSQL that does not answer is no answer about the store, and was reported as
 * "no Praxis store" (exit 2) instead of a failure to reach it.
 */
async function appliedMigrations(db: Kysely<Database>, schema?: string): Promise<string[] | undefined> {
  const table = sql.table(schema ? `${schema}.${MIGRATION_TABLE}` : MIGRATION_TABLE);
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table} order by name`.execute(db);
    return rows.map((r) => r.name);
  } catch (error) {
    if (isMissingTable(error)) return undefined;
    throw error;
  }
}

/** PostgreSQL's codes for a table, schema or database that is not there. */
const MISSING_IN_POSTGRES = new Set(['42P01', '3F000', '3D000']);

/** Whether reading the migration table failed because there is none (no table, schema or database), not because the database could not be read. */
function isMissingTable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && MISSING_IN_POSTGRES.has(code)) return true;
  return typeof message === 'string' && /^no such table: /.test(message);
}

/** Whether the database (or schema) holds a Praxis store: its migration table is there. */
export async function holdsPraxisStore(db: Kysely<Database>, schema?: string): Promise<boolean> {
  return (await appliedMigrations(db, schema)) !== undefined;
}

/**
 * Applies every migration not yet applied; a database already at the latest one is left
 * untouched. That case, every open of an existing store (each CLI command, each daemon start)
 * and every test store, is answered by one read of the migration table: Kysely's migrator
 * first introspects the database's tables to find its own (a table-info query per table) and
 * takes its lock in a transaction, 10.8 ms against 0.3 ms on PostgreSQL here, 2.1 ms against
 * 0.04 ms on SQLite (warm; each CLI command pays it cold). Only the exact set of this build's
 * migrations takes the short way. A store with a migration this build does not know was
 * written by a newer Praxis and is refused as such (Kysely's migrator called it "corrupted",
 * which could send an operator to repair a healthy database); anything else (none yet, some
 * missing) goes through the migrator.
 */
export async function migrateToLatest(db: Kysely<Database>, kind: StoreKind, schema?: string, exclusively: <T>(work: () => Promise<T>) => Promise<T> = (work) => work()): Promise<string[]> {
  const known = Object.keys(migrationsFor(kind));
  const upToDate = (applied: string[] | undefined) => applied !== undefined && applied.length === known.length && applied.every((name, i) => name === known[i]);
  if (upToDate(await appliedMigrations(db, schema))) return [];
  // One process at a time (`exclusively`: on SQLite, sqlite-migration-lock.ts; PostgreSQL's
  // migrator takes an advisory lock of its own), each reading what is applied once it may.
  return exclusively(async () => {
    const applied = await appliedMigrations(db, schema);
    if (upToDate(applied)) return [];
    const unknown = applied?.find((name) => !known.includes(name));
    if (unknown !== undefined) {
      throw new Error(
        `this store was migrated by a newer version of Praxis: it has migration ${unknown}, which this version does not know; run that version or a newer one (or restore a copy made before the upgrade)`,
      );
    }
    return migrateTo(db, kind, undefined, schema);
  });
}

/**
 * Applies the pending migrations up to `target` (every one when undefined) and returns the
 * names applied; a failed migration throws, naming it.
 */
export async function migrateTo(db: Kysely<Database>, kind: StoreKind, target?: string, schema?: string): Promise<string[]> {
  const migrator = createMigrator(db, kind, schema);
  // PostgreSQL: every pending migration in one transaction (Kysely's migrator, under its lock).
  if (kind === 'postgres') return succeeded(await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target)));
  // SQLite: one migration per transaction, with its record (the dialect declares transactional
  // DDL: sqlite-dialect.ts), so that a crash leaves each migration applied and recorded or not
  // at all. Foreign keys are off around each (SQLite ignores the pragma inside a transaction), as
  // its procedure for schema changes asks: a table other tables refer to can then be rebuilt
  // (sqlite-rebuild.ts, which checks the references it touched before the commit). Not one
  // transaction for all: the pragma could not be switched between them.
  const migrations = await migrator.getMigrations();
  if (target !== undefined && !migrations.some((m) => m.name === target)) throw new Error(`there is no migration ${target}`);
  const done: string[] = [];
  for (const { name, executedAt } of migrations) {
    if (executedAt === undefined) {
      await sql`pragma foreign_keys = off`.execute(db);
      try {
        done.push(...succeeded(await migrator.migrateTo(name)));
      } finally {
        await sql`pragma foreign_keys = on`.execute(db);
      }
    }
    if (name === target) break;
  }
  return done;
}

function succeeded({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed ?? '(setup)'} failed: ${reason}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

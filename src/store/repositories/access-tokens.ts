// Access tokens: who may use the daemon's surfaces, in which role. Rows hold a hash of the token,
// never the token itself; revoking is a conditional update, so it happens once.

import type { Selectable } from 'kysely';
import { newId } from '../../core/ids.ts';
import type { AccessRole } from '../../core/vocabulary.ts';
import type { AccessTokensTable } from '../schema.ts';
import type { RepositoryContext } from './context.ts';

export interface AccessTokenRecord {
  id: string;
  operator: string;
  role: AccessRole;
  /** Set for agent tokens: the one mind they speak for. */
  mindId: string | null;
  label: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface AccessTokenInput {
  operator: string;
  role: AccessRole;
  mindId: string | null;
  tokenHash: string;
  label: string;
  expiresAt: Date | null;
}

export class AccessTokenRepository {
  readonly #ctx: RepositoryContext;
  constructor(ctx: RepositoryContext) {
    this.#ctx = ctx;
  }

  async create(input: AccessTokenInput): Promise<AccessTokenRecord> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .insertInto('access_tokens')
      .values({
        id: newId(),
        operator: input.operator,
        role: input.role,
        mind_id: input.mindId,
        token_hash: input.tokenHash,
        label: input.label,
        created_at: codec.time(clock.now()),
        expires_at: input.expiresAt ? codec.time(input.expiresAt) : null,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return this.#decode(row);
  }

  /** The token with this hash, whatever its state: the caller decides whether it still holds. */
  async findByHash(tokenHash: string): Promise<AccessTokenRecord | null> {
    const row = await this.#ctx.db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row ? this.#decode(row) : null;
  }

  async get(id: string): Promise<AccessTokenRecord | null> {
    const row = await this.#ctx.db.selectFrom('access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? this.#decode(row) : null;
  }

  /** Oldest first. */
  async list(): Promise<AccessTokenRecord[]> {
    const rows = await this.#ctx.db.selectFrom('access_tokens').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => this.#decode(row));
  }

  /** The revoked token, or null when it does not exist or was already revoked. */
  async revoke(id: string): Promise<AccessTokenRecord | null> {
    const { db, codec, clock } = this.#ctx;
    const row = await db
      .updateTable('access_tokens')
      .set({ revoked_at: codec.time(clock.now()) })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row ? this.#decode(row) : null;
  }

  #decode(row: Selectable<AccessTokensTable>): AccessTokenRecord {
    const { codec } = this.#ctx;
    return {
      id: row.id,
      operator: row.operator,
      role: row.role,
      mindId: row.mind_id,
      label: row.label,
      createdAt: codec.readTime(row.created_at),
      expiresAt: codec.readTimeOrNull(row.expires_at),
      revokedAt: codec.readTimeOrNull(row.revoked_at),
    };
  }
}

// Issuing and checking bearer tokens. A token is 32 random bytes shown once; the store keeps its
// SHA-256. Plain SHA-256 is enough here (no salt, no slow hash) because the secret is random
// and long, not a password a person chose.

import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { InputError, type Problem } from '../core/errors.ts';
import { isOperatorName } from '../core/operator.ts';
import { AccessRoles, type AccessRole } from '../core/vocabulary.ts';
import type { AccessTokenRecord, NewEvent, Store } from '../store/index.ts';
import type { Principal } from './permissions.ts';

const TOKEN_PREFIX = 'praxis_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface TokenRequest {
  operator: string;
  role: string;
  /** Required for agents, refused for other roles. */
  mindId?: string | null;
  label?: string;
  expiresAt?: Date | null;
  /** Who issues it, recorded on the `token_created` event (the CLI's `--as` or OS user). */
  issuedBy?: string;
}

export interface IssuedToken {
  /** The secret itself: shown once, never stored. */
  token: string;
  record: AccessTokenRecord;
}

/**
 * What is wrong with a token's operator, role and binding, checked before anything is read or
 * written (the CLI checks them before it opens a store): `boundToMind` is whether a mind is named.
 */
export function tokenShapeProblems(request: { operator: string; role: string; boundToMind: boolean }): Problem[] {
  const problems: Problem[] = [];
  if (!isOperatorName(request.operator)) problems.push({ code: 'invalid_operator', path: 'operator', message: 'a token needs the name of the operator it speaks for' });
  if (!AccessRoles.has(request.role)) {
    problems.push({ code: 'invalid_role', path: 'role', message: `role must be one of ${AccessRoles.values.join(', ')}, not "${String(request.role)}"` });
  } else if (request.role === 'agent' && !request.boundToMind) {
    problems.push({ code: 'agent_needs_mind', path: 'mind', message: 'an agent token speaks for exactly one mind: name it' });
  } else if (request.role !== 'agent' && request.boundToMind) {
    problems.push({ code: 'mind_only_for_agents', path: 'mind', message: `a ${request.role} token sees every mind; only agent tokens are bound to one` });
  }
  return problems;
}

/** Whether `presented` has the form of a Praxis token at all (its prefix): one that does not is never looked up. */
export function looksLikeToken(presented: string): boolean {
  return presented.startsWith(TOKEN_PREFIX);
}

export async function issueToken(store: Store, request: TokenRequest): Promise<IssuedToken> {
  const problems = tokenShapeProblems({ operator: request.operator, role: request.role, boundToMind: Boolean(request.mindId) });
  if (request.issuedBy !== undefined && !isOperatorName(request.issuedBy)) {
    problems.push({ code: 'invalid_operator', path: 'issued_by', message: 'the operator issuing a token needs a name' });
  }
  if (request.expiresAt && request.expiresAt.getTime() <= store.clock.now().getTime()) {
    problems.push({ code: 'expiry_in_past', path: 'expires', message: 'the expiry must lie in the future' });
  }
  if (problems.length > 0) throw new InputError(problems);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  // The token and the record of who issued it commit together: no token exists off the record.
  const record = await store.transaction(async (tx) => {
    const created = await tx.accessTokens.create({
      operator: request.operator.trim(),
      role: request.role as AccessRole,
      mindId: request.mindId ?? null,
      tokenHash: hashToken(token),
      label: request.label ?? '',
      expiresAt: request.expiresAt ?? null,
    });
    await tx.events.append(tokenEvent('token_created', created, request.issuedBy?.trim() ?? ''));
    return created;
  });
  return { token, record };
}

/** Every token, as records that never hold a secret (only its hash is stored): what `praxis token list` shows. */
export function listTokens(store: Store): Promise<AccessTokenRecord[]> {
  return store.accessTokens.list();
}

export type Revocation = { revoked: AccessTokenRecord } | { refused: 'not_found' | 'already_revoked'; message: string };

/** Revokes a token at once, recorded as `token_revoked` with who revoked it. */
export async function revokeToken(store: Store, tokenId: string, revokedBy: string): Promise<Revocation> {
  if (!isOperatorName(revokedBy)) throw new InputError([{ code: 'invalid_operator', path: 'operator', message: 'revoking a token needs the name of the operator doing it' }]);
  const revoked = await store.transaction(async (tx) => {
    const record = await tx.accessTokens.revoke(tokenId);
    if (record) await tx.events.append(tokenEvent('token_revoked', record, revokedBy.trim()));
    return record;
  });
  if (revoked) return { revoked };
  const existing = await store.accessTokens.get(tokenId);
  return existing ? { refused: 'already_revoked', message: `token ${tokenId} was already revoked at ${existing.revokedAt?.toISOString()}` } : { refused: 'not_found', message: `no token ${tokenId}` };
}

/**
 * A token's audit event: `operator` is who acted, `token_operator` whom the token speaks for.
 * An agent token's events belong to its mind's timeline; the others to no mind (the audit trail).
 * Never the secret nor its hash.
 */
function tokenEvent(type: 'token_created' | 'token_revoked', record: AccessTokenRecord, by: string): NewEvent {
  return {
    type,
    mindId: record.mindId,
    data: {
      operator: by,
      token_id: record.id,
      token_operator: record.operator,
      role: record.role,
      label: record.label,
      expires_at: record.expiresAt?.toISOString() ?? null,
    },
  };
}

/** True while the token is neither revoked nor past its expiry. */
export function tokenHolds(record: AccessTokenRecord, clock: Clock): boolean {
  if (record.revokedAt) return false;
  return !record.expiresAt || record.expiresAt.getTime() > clock.now().getTime();
}

/**
 * Whether the token a principal was authenticated with still holds, read again from the store (a
 * revocation by any daemon on it counts); always true for a principal without a token (local).
 * For what outlives one request: a live stream, an MCP session.
 */
export async function principalHolds(store: Pick<Store, 'accessTokens' | 'clock'>, principal: Pick<Principal, 'tokenId'>): Promise<boolean> {
  if (principal.tokenId === null) return true;
  const record = await store.accessTokens.get(principal.tokenId);
  return record !== null && tokenHolds(record, store.clock);
}

/**
 * The token in an `Authorization` header: undefined when there is no header, null when there is
 * one that is not `Bearer <token>` (a mistake to report, not an anonymous request).
 */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** The principal a presented token speaks for, or null for an unknown, revoked or expired one. */
export async function authenticate(store: Store, presented: string): Promise<Principal | null> {
  if (!looksLikeToken(presented)) return null;
  const record = await store.accessTokens.findByHash(hashToken(presented));
  if (!record || !tokenHolds(record, store.clock)) return null;
  return { tokenId: record.id, operator: record.operator, role: record.role, mindId: record.mindId };
}

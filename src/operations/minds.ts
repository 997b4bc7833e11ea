// Finding and creating minds, and keeping an agent to the one mind its token is bound to.

import { mayActOnMind, type Principal } from '../access/permissions.ts';
import { isId } from '../core/ids.ts';
import type { IntentionRecord, MindRecord, Store } from '../store/index.ts';
import { Conflict, NotFound, invalid } from './errors.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';

const MIND_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

/**
 * The mind a name or id names, if the principal may touch it. `path` names the input that held
 * it. A mind out of the principal's reach is refused exactly as one that does not exist.
 */
export async function resolveMind(store: Store, principal: Principal, nameOrId: string, path = 'mind'): Promise<MindRecord> {
  const mind = isId(nameOrId) ? await store.minds.get(nameOrId) : await store.minds.getByName(nameOrId);
  if (!mind || !mayActOnMind(principal, mind.id)) throw new NotFound(path, `no mind named or numbered "${nameOrId}"`, 'unknown_mind');
  return mind;
}

/**
 * The record, if it exists and belongs to a mind the principal reaches; otherwise
 * `NotFound(path, missingMessage)`. A record of another mind gets word for word the answer of a
 * missing one, so an agent learns nothing about which ids other minds' records have.
 */
export function inReach<T extends { mindId: string }>(principal: Principal, record: T | undefined, path: string, missingMessage: string): T {
  if (!record || !mayActOnMind(principal, record.mindId)) throw new NotFound(path, missingMessage);
  return record;
}

/** The mind an agent's token is bound to, if it still exists (the token's binding is the access check). */
export async function boundMind(store: Store, principal: Principal): Promise<MindRecord | undefined> {
  return principal.mindId === null ? undefined : store.minds.get(principal.mindId);
}

/** An intention the caller may see, by id (plans and the timeline name it as well as intentions). */
export async function findIntention(store: Store, principal: Principal, id: string, path = 'id'): Promise<IntentionRecord> {
  return inReach(principal, await store.intentions.get(id), path, `no intention ${id}`);
}

/**
 * The mind a cross-mind list is narrowed to: the one asked for, or for an agent its own mind
 * whether it asked or not (it sees nothing else).
 */
export async function mindFilter(store: Store, principal: Principal, nameOrId: string | undefined): Promise<string | undefined> {
  if (nameOrId !== undefined) return (await resolveMind(store, principal, nameOrId)).id;
  return principal.mindId ?? undefined;
}

export async function listMinds(store: Store, principal: Principal, request: PageRequest): Promise<Page<MindRecord>> {
  const limit = pageSize(request);
  if (principal.mindId) {
    const own = await store.minds.get(principal.mindId);
    return { items: own ? [own] : [], next_cursor: null };
  }
  const afterName = request.cursor === undefined ? undefined : decodeCursor('name', request.cursor);
  const rows = await store.minds.listPage({ ...(afterName !== undefined ? { afterName } : {}), limit: limit + 1 });
  return pageOf(rows, limit, (m) => m.name, 'name');
}

export interface NewMindInput {
  name: string;
  host?: string | null | undefined;
  sandbox?: boolean | undefined;
}

/** Refuses a name no mind may have; `path` names the input that held it. */
export function checkMindName(name: string, path = 'name'): void {
  if (!MIND_NAME.test(name)) {
    throw invalid('invalid_name', path, 'a mind name is 1 to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit');
  }
  // A name that parses as an id would make `{mind}` in paths ambiguous; in any case, since an id
  // in upper case is refused as an id and would be looked up as a name.
  if (isId(name.toLowerCase())) throw invalid('invalid_name', path, 'a mind name cannot look like an id');
}

export async function createMind(store: Store, input: NewMindInput): Promise<MindRecord> {
  checkMindName(input.name);
  if (input.host !== undefined && input.host !== null && input.host.trim() === '') {
    throw invalid('invalid_host', 'host', 'the host is a host name, or left out for any host');
  }
  if (await store.minds.getByName(input.name)) throw new Conflict('name', `a mind named "${input.name}" already exists`, 'name_taken');
  try {
    return await store.minds.create({ name: input.name, host: input.host ?? null, sandbox: input.sandbox ?? false });
  } catch (error) {
    // Two creators racing past the check above: the unique index decides, the loser hears it.
    if (await store.minds.getByName(input.name)) throw new Conflict('name', `a mind named "${input.name}" already exists`, 'name_taken');
    throw error;
  }
}

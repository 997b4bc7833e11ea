// What each role may do, as a pure table. Surfaces ask `may(role, permission)` before acting;
// nothing else decides access, so the HTTP API, the console and MCP cannot drift apart.

import type { AccessRole } from '../core/vocabulary.ts';

/**
 * - `read`: see minds, plans, steps, approvals, requests, grants, events, memories.
 * - `propose`: form intentions, submit plans, withdraw one's own pending requests.
 * - `decide`: approve or deny approvals, grant or deny capability requests, revoke grants,
 *   release blocked steps, cancel plans and intentions.
 * - `administer`: change policy, create minds, manage tokens.
 */
export const PERMISSIONS = ['read', 'propose', 'decide', 'administer'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const GRANTED: Record<AccessRole, ReadonlySet<Permission>> = {
  viewer: new Set(['read']),
  agent: new Set(['read', 'propose']),
  operator: new Set(['read', 'propose', 'decide']),
  admin: new Set(['read', 'propose', 'decide', 'administer']),
};

export function may(role: AccessRole, permission: Permission): boolean {
  return GRANTED[role].has(permission);
}

/** The identity behind a request: recorded on every decision it makes. */
export interface Principal {
  tokenId: string | null;
  operator: string;
  role: AccessRole;
  /** Agents are confined to one mind; null means every mind. */
  mindId: string | null;
}

/** True when the principal may touch things belonging to this mind. */
export function mayActOnMind(principal: Principal, mindId: string): boolean {
  return principal.mindId === null || principal.mindId === mindId;
}

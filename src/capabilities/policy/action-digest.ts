// The digest that binds an approval to one exact action. Approving executes the stored action
// only if it still matches the digest recorded when the request was raised: any change to the
// capability, the target or a parameter makes the approval unusable.
//
// Two schemes, told apart by the digest's prefix:
// - `hmac-sha256:<key id>:<hex>`, keyed with the daemon secret (src/access/daemon-secret.ts), kept
//   outside the database. It covers the action and everything the four-eyes rules and the
//   approver read: the request's id, mind, origin, explanation and evidence, the approvers
//   required, the author and who named the author, the operators' amendments of the action
//   (covered only once there is one, so requests signed before amendments existed still verify),
//   and the expiry. Someone who can write the
//   database but not read the secret cannot alter any of these and forge a matching digest.
//   The key id (a digest of the secret, never the secret) tells "another secret signed this"
//   apart from "this was altered".
// - `sha256:<hex>`, unkeyed, of the action alone: what Praxis wrote before digests were keyed,
//   and what a capability service given no key still writes and checks. A keyed service refuses
//   it (`unkeyed_digest`): it proves nothing against a database writer.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../core/plan.ts';

export interface Action {
  capability: string;
  target: string;
  params: JsonValue;
}

/** What a keyed digest covers besides the action. */
export interface ApprovalBinding extends Action {
  id: string;
  mindId: string;
  origin: string;
  correlationId: string;
  evidence: JsonObject;
  explanation: JsonObject;
  approversRequired: number;
  authoredBy: string;
  /** Who named the author after the request was raised; empty when it was recorded with it. */
  authorNamedBy: string;
  /** Operators' amendments of the action, oldest first (each amender is an author too). */
  amendments?: readonly object[];
  expiresAt: Date;
}

/** The daemon secret as a signing key. Never printed or stored; `id` may be. */
export interface ApprovalKey {
  /** Twelve hex digits derived from the secret, naming it without revealing it. */
  readonly id: string;
  sign(message: string): string;
}

const KEYED = 'hmac-sha256';
const UNKEYED = 'sha256';
/** Bytes a secret needs at least: a shorter one could be guessed. */
export const MIN_SECRET_BYTES = 32;

export function approvalKeyFrom(secret: Uint8Array): ApprovalKey {
  if (secret.length < MIN_SECRET_BYTES) throw new RangeError(`an approval key needs a secret of at least ${MIN_SECRET_BYTES} bytes`);
  const material = Buffer.from(secret);
  const sign = (message: string) => createHmac('sha256', material).update(message, 'utf8').digest('hex');
  return { id: sign('praxis approval key id').slice(0, 12), sign };
}

/** JSON with object keys sorted at every level, so equal actions always hash the same. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The unkeyed digest of the action alone (the scheme of a service without a key). */
export function actionDigest(action: Action): string {
  const canonical = canonicalJson({ capability: action.capability, target: action.target, params: action.params });
  return `${UNKEYED}:${createHash('sha256').update(canonical).digest('hex')}`;
}

function bindingText(binding: ApprovalBinding): string {
  return canonicalJson({
    scheme: 2,
    id: binding.id,
    mind_id: binding.mindId,
    origin: binding.origin,
    correlation_id: binding.correlationId,
    capability: binding.capability,
    target: binding.target,
    params: binding.params,
    evidence: binding.evidence,
    explanation: binding.explanation,
    approvers_required: binding.approversRequired,
    authored_by: binding.authoredBy,
    author_named_by: binding.authorNamedBy,
    ...(binding.amendments && binding.amendments.length > 0 ? { amendments: binding.amendments as unknown as JsonValue[] } : {}),
    expires_at: binding.expiresAt.toISOString(),
  });
}

/** The digest a request is raised with: keyed when there is a key, else the unkeyed one. */
export function approvalDigest(key: ApprovalKey | null, binding: ApprovalBinding): string {
  if (!key) return actionDigest(binding);
  return `${KEYED}:${key.id}:${key.sign(bindingText(binding))}`;
}

/**
 * How a stored digest stands against the stored request:
 * - `intact`: it matches;
 * - `altered`: same scheme and key, no match: the request or its digest was changed;
 * - `other_key`: signed with another secret (another daemon's, or this one's was replaced);
 * - `unkeyed`: an unkeyed digest, and this service has a key;
 * - `no_key`: a keyed digest, and this service has none to check it with.
 */
export type DigestCheck = 'intact' | 'altered' | 'other_key' | 'unkeyed' | 'no_key';

export function checkApprovalDigest(key: ApprovalKey | null, binding: ApprovalBinding, digest: string): DigestCheck {
  const keyed = new RegExp(`^${KEYED}:([0-9a-f]{12}):([0-9a-f]{64})$`).exec(digest);
  if (!key) {
    if (keyed) return 'no_key';
    return sameText(digest, actionDigest(binding)) ? 'intact' : 'altered';
  }
  if (!keyed) return digest.startsWith(`${UNKEYED}:`) ? 'unkeyed' : 'altered';
  if (keyed[1] !== key.id) return 'other_key';
  return sameText(keyed[2]!, key.sign(bindingText(binding))) ? 'intact' : 'altered';
}

/** The key id a keyed digest names, or null for an unkeyed one. */
export function digestKeyId(digest: string): string | null {
  return new RegExp(`^${KEYED}:([0-9a-f]{12}):`).exec(digest)?.[1] ?? null;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

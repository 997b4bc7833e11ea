// Commitments: constraints a mind takes on. The only kind is "ask an operator before using this
// capability on these targets", so a commitment can only ever add a requirement: policy turns
// an allow into an ask where one binds, and nothing a commitment says can turn an ask into an
// allow. Releasing one is explicit and happens once.

import type { Problem } from '../core/errors.ts';
import type { CommitmentRecord, Store } from '../store/index.ts';

export interface CommitmentInput {
  mindId: string;
  /** A capability name or a glob over names (`service.*`). */
  capability: string;
  /** Targets it binds, as a pattern (`payments-*`, `*`). */
  targetPattern: string;
  reason: string;
}

const NAME_OR_GLOB = /^[a-z*?][a-z0-9_.*?]*$/;
const PATTERN = /^[\x21-\x7e]{1,512}$/;

export function checkCommitmentInput(input: CommitmentInput): Problem[] {
  const problems: Problem[] = [];
  if (typeof input.capability !== 'string' || !NAME_OR_GLOB.test(input.capability)) {
    problems.push({ code: 'invalid_capability', path: 'capability', message: 'name a capability or a glob over names, e.g. service.*' });
  }
  if (typeof input.targetPattern !== 'string' || !PATTERN.test(input.targetPattern)) {
    problems.push({ code: 'invalid_target_pattern', path: 'targetPattern', message: 'a target pattern is 1 to 512 printable characters without spaces' });
  }
  if (typeof input.reason !== 'string' || input.reason.trim() === '') {
    problems.push({ code: 'missing_reason', path: 'reason', message: 'a commitment says why it was taken' });
  }
  return problems;
}

export async function takeCommitment(store: Store, input: CommitmentInput): Promise<{ ok: true; commitment: CommitmentRecord } | { ok: false; problems: Problem[] }> {
  const problems = checkCommitmentInput(input);
  if (problems.length > 0) return { ok: false, problems };
  if (!(await store.minds.get(input.mindId))) {
    return { ok: false, problems: [{ code: 'unknown_mind', path: 'mindId', message: `no mind with id ${input.mindId}` }] };
  }
  const commitment = await store.commitments.create({ ...input, reason: input.reason.trim() });
  return { ok: true, commitment };
}

/** active → released; undefined when it was already released or does not exist. */
export function releaseCommitment(store: Store, id: string): Promise<CommitmentRecord | undefined> {
  return store.commitments.release(id);
}

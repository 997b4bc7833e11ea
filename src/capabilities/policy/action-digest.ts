// The digest that binds an approval to one exact action. Approving executes the stored action
// only if it still hashes to the digest recorded when the request was raised: any change to
// the capability, the target or a parameter makes the approval unusable.

import { createHash } from 'node:crypto';
import type { JsonValue } from '../../core/plan.ts';

export interface Action {
  capability: string;
  target: string;
  params: JsonValue;
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

export function actionDigest(action: Action): string {
  const canonical = canonicalJson({ capability: action.capability, target: action.target, params: action.params });
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

import { v7, validate as isUuid } from 'uuid';

/** Time-ordered ids, so primary-key order follows creation order. */
export function newId(): string {
  return v7();
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && isUuid(value);
}

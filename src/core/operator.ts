// Every operator decision (approve, deny, grant, revoke, release) records who made it; a
// decision without a name is refused before anything is read or written.

export function isOperatorName(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

// Tool input schemas. Every tool takes a strict object: a field the tool does not know is an
// error naming it, never silently dropped (a model that misspells `plan_id` must hear so). The
// SDK validates arguments against these before a tool runs and answers failures as `isError`
// results whose text names the field.

import { z } from 'zod';
import { isId } from '../core/ids.ts';

export function toolInput<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const keys = (issue as { keys?: string[] }).keys ?? [];
      const allowed = known.length > 0 ? `it takes only ${known.join(', ')}` : 'it takes no arguments';
      return `unknown field${keys.length === 1 ? '' : 's'} ${keys.map((k) => `"${k}"`).join(', ')}: ${allowed}`;
    },
  });
}

export const idField = (what: string) =>
  z
    .string()
    .refine(isId, { message: `must be the id of a${/^[aeiou]/.test(what) ? 'n' : ''} ${what} (a UUID in lower case)` })
    .describe(`the ${what}'s id`);

export const mindField = z.string().min(1).optional().describe("the mind's name or id; an agent token may omit it (it speaks for its own mind only)");

/** A capability's parameters: checked against its JSON schema by the registry, not here. */
export const paramsField = z.record(z.string(), z.unknown()).describe("the capability's parameters, as its schema in list_capabilities describes");

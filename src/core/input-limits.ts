// The one input rule, applied where text enters Praxis: an API body, query or path parameter, an
// MCP tool's arguments, a CLI JSON parameter or plan file, a model's proposal. Whatever the
// field, a value is refused when
// - a string (an object key included) holds a control character other than tab, line feed and
//   carriage return (NUL among them: PostgreSQL cannot store it, and it stalled a plan), or half
//   of a UTF-16 surrogate pair (PostgreSQL's JSON refuses those too);
// - a string is longer than `maxStringLength`, an array has more than `maxArrayLength` items, an
//   object more than `maxObjectKeys` keys;
// - it nests deeper than `maxDepth`, or holds more than `maxValues` values in all.
// The walk is iterative, so a value nested thousands deep is refused, never a stack overflow,
// and it stops after `maxProblems` problems, so a huge bad input costs one bounded answer.
// Field-specific limits (an objective's length, a step count) are the schemas' and validation's.

import type { Problem } from './errors.ts';
import type { ErrorCode } from './error-codes.ts';

export const INPUT_LIMITS = Object.freeze({
  /** Characters in any one string. The largest legitimate ones are plan notes and explanations. */
  maxStringLength: 65_536,
  /** Items in any one array (a plan's steps, a step's depends_on, a list of parameters). */
  maxArrayLength: 1_000,
  /** Keys in any one object. */
  maxObjectKeys: 1_000,
  /** Levels of nesting: the value itself is depth 0. A plan needs fewer than ten. */
  maxDepth: 32,
  /** Values (strings, numbers, objects, …) in the whole input. */
  maxValues: 100_000,
  /** Problems reported at most; the rest are counted in one more. */
  maxProblems: 20,
});

export type InputLimits = typeof INPUT_LIMITS;

/** Control characters except \t \n \r, DEL, and the C1 controls. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string may not enter, or null when it may. */
export function textProblem(text: string, maxLength: number = INPUT_LIMITS.maxStringLength): { code: ErrorCode; message: string } | null {
  if (text.length > maxLength) return { code: 'too_long', message: `is ${text.length} characters long; at most ${maxLength} are accepted` };
  const control = CONTROL.exec(text);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    return { code: 'control_character', message: `holds the control character U+${code} at position ${control.index}; only tab, line feed and carriage return are accepted` };
  }
  const half = LONE_SURROGATE.exec(text);
  if (half) return { code: 'invalid_text', message: `holds half of a UTF-16 surrogate pair at position ${half.index}; it is not valid Unicode text` };
  return null;
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const name = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key.length > 40 ? `${key.slice(0, 37)}...` : key);
  if (!path) return name.startsWith('"') ? `[${name}]` : name;
  return name.startsWith('"') ? `${path}[${name}]` : `${path}.${name}`;
}

/**
 * The problems of an untrusted value under the input rule, each naming the offending field by its
 * path below `root` (`body.steps[0].spec.value`). Empty when the value may enter.
 */
export function inputProblems(value: unknown, root = '', limits: InputLimits = INPUT_LIMITS): Problem[] {
  const problems: Problem[] = [];
  let more = 0;
  const report = (code: ErrorCode, path: string, message: string) => {
    if (problems.length < limits.maxProblems) problems.push({ code, path, message });
    else more += 1;
  };
  let values = 0;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    values += 1;
    if (values > limits.maxValues) {
      report('too_many_values', root, `holds more than ${limits.maxValues} values in all`);
      break;
    }
    const current = item.value;
    if (typeof current === 'string') {
      const problem = textProblem(current, limits.maxStringLength);
      if (problem) report(problem.code, item.path, problem.message);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (item.depth >= limits.maxDepth) {
      report('too_deep', item.path, `nests deeper than ${limits.maxDepth} levels`);
      continue;
    }
    const children: { value: unknown; path: string; depth: number }[] = [];
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayLength) {
        report('too_many_items', item.path, `has ${current.length} items; at most ${limits.maxArrayLength} are accepted`);
        continue;
      }
      current.forEach((child, index) => children.push({ value: child, path: childPath(item.path, index), depth: item.depth + 1 }));
    } else {
      const keys = Object.keys(current);
      if (keys.length > limits.maxObjectKeys) {
        report('too_many_keys', item.path, `has ${keys.length} keys; at most ${limits.maxObjectKeys} are accepted`);
        continue;
      }
      for (const key of keys) {
        const at = childPath(item.path, key);
        const problem = textProblem(key, Math.min(limits.maxStringLength, 1_000));
        if (problem) {
          report(problem.code === 'too_long' ? 'key_too_long' : problem.code, at, `the field name ${problem.message}`);
          continue;
        }
        children.push({ value: (current as Record<string, unknown>)[key], path: at, depth: item.depth + 1 });
      }
    }
    // Pushed in reverse so fields are reported in the order they were written.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  if (more > 0) problems.push({ code: 'more_problems', path: root, message: `${more} more problem(s) not listed` });
  return problems;
}

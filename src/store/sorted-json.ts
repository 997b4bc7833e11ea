// The JSON text the store writes for a value: keys sorted at every depth, so equal values always
// encode to the same text whatever order their keys were built in (SQLite compares stored JSON as
// text: an optimistic check on a decision list, for example).
//
// It is exactly the text `JSON.stringify(value, sortKeys)` gave, where the replacer copied every
// object into a prototype-less object with its keys in sorted order; the store held that text for
// every row it wrote before, and a stored text is compared with a new one. Writing the text
// directly saves the copies (only the key lists are still arrays): the executor encodes several objects a step (events, executions,
// step results), and the copying replacer was 8 % of a busy SQLite run and much of its garbage.
//
// What the copy did, kept here:
// - keys that are array indices ("0", "7", "42") come first in numeric order, as a JavaScript
//   object lists them, then the other keys in sorted order (UTF-16 code units);
// - a "__proto__" key stays a key;
// - every object that is not an array is written from its own enumerable string keys, so a Map,
//   a Set or a boxed primitive is written as an object of those keys ({} for most);
// - `toJSON` is called (with the property's key) before anything else, as JSON.stringify does,
//   on objects, functions and bigints alike;
// - undefined, functions and symbols are left out of objects and written as null in arrays;
//   numbers that are not finite are written as null; a bigint is refused.
// A value that contains itself is refused with a TypeError (JSON.stringify overflowed the stack
// on the copies). One difference is left: the copy read all of an object's properties before
// writing any of them, and this reads each as it writes it, so a toJSON or a getter that changes
// a sibling property already read can give other text. Nothing the store writes does that.

const MAX_ARRAY_INDEX = 4294967294;

/** The text, or undefined when the value has none (undefined, a function or a symbol). */
export function sortedJson(value: unknown): string | undefined {
  return encode(value, '', []);
}

function encode(input: unknown, key: string, open: object[]): string | undefined {
  let value = input;
  if ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key);
  }
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      if (value === null) return 'null';
      if (open.includes(value)) throw new TypeError('Converting circular structure to JSON');
      open.push(value);
      try {
        return Array.isArray(value) ? encodeArray(value, open) : encodeObject(value as Record<string, unknown>, open);
      } finally {
        open.pop();
      }
    default:
      return undefined;
  }
}

function encodeArray(array: readonly unknown[], open: object[]): string {
  let text = '[';
  for (let i = 0; i < array.length; i += 1) {
    if (i > 0) text += ',';
    text += encode(array[i], String(i), open) ?? 'null';
  }
  return `${text}]`;
}

function encodeObject(object: Record<string, unknown>, open: object[]): string {
  let text = '{';
  let first = true;
  for (const key of keyOrder(Object.keys(object))) {
    const encoded = encode(object[key], key, open);
    if (encoded === undefined) continue;
    text += `${first ? '' : ','}${quotedKey(key)}:${encoded}`;
    first = false;
  }
  return `${text}}`;
}

/**
 * Keys repeat from row to row (`capability`, `origin`, `reason`...): their quoted text is kept,
 * up to a bound, since keys also come from data (a step's params) and need not repeat.
 */
const QUOTED_KEYS_KEPT = 2048;
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_KEPT && key.length <= 64) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** Array-index keys in numeric order, then the rest sorted: the order of the sorted copy. */
function keyOrder(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  if (!keys.some(isArrayIndex)) return sortNames(keys);
  const indices = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  const names = keys.filter((key) => !isArrayIndex(key));
  return names.length > 0 ? indices.concat(sortNames(names)) : indices;
}

/** Few keys are sorted in place by insertion: Array.prototype.sort allocates its work space on every call, which made it the second-largest source of garbage in a busy pass. */
const SORTED_BY_INSERTION = 24;

function sortNames(names: string[]): string[] {
  if (names.length > SORTED_BY_INSERTION) return names.sort();
  // `<` on strings compares UTF-16 code units, as the default sort does; keys are never equal.
  for (let i = 1; i < names.length; i += 1) {
    const name = names[i]!;
    let j = i - 1;
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!;
      j -= 1;
    }
    names[j + 1] = name;
  }
  return names;
}

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  if (key === '0') return true;
  return first !== 48 && key.length <= 10 && /^\d+$/.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

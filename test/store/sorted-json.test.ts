// The store's JSON text (sorted-json.ts) is the text the store wrote before it: JSON.stringify
// with a replacer that copied every object with its keys sorted. Stored texts are compared with
// new ones, so the two must agree on every value, odd ones included: checked here on chosen
// values and on thousands of generated ones, against that replacer kept as the reference.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortedJson } from '../../src/store/sorted-json.ts';

function sortKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}

const reference = (value: unknown) => JSON.stringify(value, sortKeys);

function same(value: unknown, label: string): void {
  assert.equal(sortedJson(value), reference(value), label);
}

/** A small deterministic generator (mulberry32), so a failure names a value that can be made again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'a',
  'b',
  'B',
  'z',
  '_',
  'é',
  'ü',
  '\u{1F600}',
  '0',
  '1',
  '2',
  '9',
  '10',
  '01',
  '-1',
  '1.5',
  '4294967294',
  '4294967295',
  '00',
  ' ',
  '',
  '__proto__',
  'toJSON?',
  'key with spaces',
  '\u2028',
];
const STRINGS = ['', 'text', 'quote " and \\ backslash', 'line\nbreak', '\u2028\u2029', '\ud800 lone surrogate', '\u{1F600}', 'tab\t', 'ascii \u0001 control', '\\u0000 as text'];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789012345680000, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY, -Number.MIN_VALUE];

function generate(next: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const kind = Math.floor(next() * (depth > 3 ? 6 : 10));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return pick(NUMBERS);
    case 3:
      return pick(STRINGS);
    case 4:
      return pick([undefined, () => 1, Symbol('s'), new Date(Date.UTC(2026, 11, 4, 18, 0, 0, 250)), new Date(Number.NaN)]);
    case 5:
      return pick([{}, [], new Map([['a', 1]]), new Set([1]), Object.create(null), new String('boxed'), new Number(3), { toJSON: (key: string) => `called with ${key}` }]);
    case 6:
    case 7: {
      const object: Record<string, unknown> = next() < 0.2 ? Object.create(null) : {};
      const size = Math.floor(next() * 7);
      for (let i = 0; i < size; i += 1) {
        const key = pick(KEYS);
        if (key === '__proto__') Object.defineProperty(object, key, { value: generate(next, depth + 1), enumerable: true, writable: true, configurable: true });
        else object[key] = generate(next, depth + 1);
      }
      return object;
    }
    default: {
      const array = Array.from({ length: Math.floor(next() * 5) }, () => generate(next, depth + 1));
      // A hole: an element never set.
      if (next() < 0.1) array.length += 1;
      return array;
    }
  }
}

describe('the JSON text the store writes', () => {
  it('matches the sorting replacer on chosen values', () => {
    const cases: [string, unknown][] = [
      ['nested keys', { b: { d: 1, c: [{ z: 1, a: 2 }] }, a: null }],
      ['index keys first, numerically', { b: 1, '10': 2, '9': 3, '01': 4, a: 5, '4294967295': 6, '4294967294': 7 }],
      ['__proto__ as a key', JSON.parse('{"__proto__": {"x": 1}, "a": 2}')],
      ['toJSON with its key', { at: new Date(Date.UTC(2026, 0, 2)), custom: { toJSON: (key: string) => ({ key, b: 1, a: 2 }) } }],
      ['left out and null', { u: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1, Symbol('y'), Number.NaN, -0] }],
      [
        'a function with toJSON, in an object and in an array',
        { f: Object.assign(() => 1, { toJSON: (key: string) => `fn ${key}` }), list: [Object.assign(() => 2, { toJSON: () => ({ b: 1, a: 2 }) })] },
      ],
      [
        'a class with a static toJSON',
        {
          c: class Named {
            readonly name = 'instance';
            static toJSON() {
              return 'the class';
            }
          },
        },
      ],
      ['a sparse array', Object.assign(new Array(3), { 0: 1, 2: 3 })],
      ['getters', Object.defineProperty({ b: 1 }, 'a', { get: () => 'got', enumerable: true })],
      [
        'a class instance',
        new (class Point {
          y = 2;
          x = 1;
        })(),
      ],
      ['a typed array', new Uint8Array([3, 1, 2])],
      ['many keys, sorted by the library sort', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [i % 3 === 0 ? String(40 - i) : `k${(i * 7919) % 97}`, i]))],
      ['top-level scalars', 'just text'],
    ];
    for (const [label, value] of cases) same(value, label);
    for (const value of [undefined, () => 1, Symbol('top')]) assert.equal(sortedJson(value), undefined);
  });

  it('matches the sorting replacer on generated values', () => {
    const next = random(20261204);
    for (let i = 0; i < 5000; i += 1) {
      const value = generate(next, 0);
      same(value, `generated value ${i}: ${String(reference(value))}`);
    }
  });

  it('refuses a bigint and a value that contains itself', () => {
    assert.throws(() => sortedJson({ n: 1n }), TypeError);
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { back: loop };
    assert.throws(() => sortedJson(loop), /circular/);
    const list: unknown[] = [];
    list.push(list);
    assert.throws(() => sortedJson(list), /circular/);
    // The same object twice, side by side, is not a loop.
    const shared = { x: 1 };
    assert.equal(sortedJson({ a: shared, b: [shared, shared] }), '{"a":{"x":1},"b":[{"x":1},{"x":1}]}');
  });
});

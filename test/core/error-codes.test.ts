import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ERROR_CODES, errorCodesMarkdown, isErrorCode, type ErrorCode } from '../../src/core/error-codes.ts';
import { Conflict, Forbidden, NotFound, refusalOf } from '../../src/operations/errors.ts';

describe('the error code catalogue', () => {
  it('is what docs/error-codes.md lists (regenerate it with npm run docs:error-codes)', () => {
    const doc = readFileSync(new URL('../../docs/error-codes.md', import.meta.url), 'utf8');
    assert.equal(doc, errorCodesMarkdown());
  });

  it('names each code in lower snake case, with a one-line meaning', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^[a-z][a-z0-9_]*$/, code);
      assert.ok(entry.meaning.length > 0 && !entry.meaning.includes('\n'), code);
    }
  });

  it('lists no code that nothing in src names (a dead entry would only mislead the doc)', () => {
    const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    const text = files(src)
      .filter((file) => !file.endsWith('error-codes.ts'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    // Built from a word (`more_${what}`, src/planning/findings.ts), or named only by the test capabilities.
    const elsewhere = new Set(['more_errors', 'more_warnings', 'unavailable']);
    const unnamed = Object.keys(ERROR_CODES).filter((code) => !elsewhere.has(code) && !text.includes(`'${code}'`) && !text.includes(`"${code}"`));
    assert.deepEqual(unnamed, []);
  });

  it('knows its own codes and no others', () => {
    assert.equal(isErrorCode('unknown_mind'), true);
    assert.equal(isErrorCode('duplicate_name'), false);
    assert.equal(isErrorCode('toString'), false);
  });

  it("makes a service's refusal the operation error its status says", () => {
    const cases: [ErrorCode, new (...args: never[]) => Error][] = [
      ['not_found', NotFound],
      ['not_owner', Forbidden],
      ['not_pending', Conflict],
      ['self_approval', Conflict],
    ];
    for (const [code, kind] of cases) {
      const error = refusalOf(code, 'id', 'no');
      assert.ok(error instanceof kind, `${code} is a ${kind.name}`);
      assert.equal(error.problems[0]?.code, code);
    }
    const plain = refusalOf('invalid_params', 'params', 'bad');
    assert.ok(!(plain instanceof NotFound || plain instanceof Conflict || plain instanceof Forbidden));
  });
});

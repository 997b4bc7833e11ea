// Plan files and API bodies arrive as JSON or YAML text. This turns text into an untrusted
// value for parseProposal, with a clear error (and position) instead of a parser's trace.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { ValidationIssue } from '../core/plan.ts';

// The YAML parser is loaded on the first YAML text, not at start: a JSON plan (and a command
// that reads no plan) never needs it. Loaded synchronously, so parsing stays synchronous.
const load = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

export type PlanTextFormat = 'json' | 'yaml';

export type PlanText = { ok: true; value: unknown } | { ok: false; errors: ValidationIssue[] };

/** Largest plan text accepted; a thirty-step plan is a few kilobytes. */
export const MAX_PLAN_TEXT_BYTES = 1024 * 1024;

export function formatOfFileName(name: string): PlanTextFormat | undefined {
  if (/\.json$/i.test(name)) return 'json';
  if (/\.ya?ml$/i.test(name)) return 'yaml';
  return undefined;
}

export function parsePlanText(text: string, format: PlanTextFormat): PlanText {
  if (Buffer.byteLength(text, 'utf8') > MAX_PLAN_TEXT_BYTES) {
    return refused(`plan text is larger than ${MAX_PLAN_TEXT_BYTES} bytes`);
  }
  if (format === 'json') {
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      return refused(`not valid JSON: ${(error as Error).message}`);
    }
  }
  // YAML: plain data only. Unknown tags, aliases, merge keys, duplicate keys and multiple
  // documents are refused rather than interpreted; so are YAML 1.1's known tags (!!set,
  // !!binary, !!timestamp, !!omap, !!pairs), which the parser would otherwise resolve into
  // values a plan cannot hold (a set stored as {}, bytes as a Buffer's JSON).
  yaml ??= load('yaml') as typeof Yaml;
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { merge: false, uniqueKeys: true, customTags: [], resolveKnownTags: false, prettyErrors: true, lineCounter });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const where = problem.linePos?.[0] ? ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}` : '';
    return refused(`not valid YAML${where}: ${problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:$/, '')}`);
  }
  // Aliases and merge keys are found here, with their place: the parser reads both without
  // complaint (an alias failed only when converted, with no position; with merging off `<<` is
  // an ordinary key, caught later as an unknown field or, in free-form params, kept).
  const notPlain = notPlainData(yaml, doc);
  if (notPlain) {
    const { line, col } = lineCounter.linePos(notPlain.offset);
    return refused(`not plain YAML data at line ${line}, column ${col}: ${notPlain.what}`);
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 0 }) as unknown };
  } catch (error) {
    return refused(`not plain YAML data: ${(error as Error).message}`);
  }
}

/** The first alias or merge key in `doc`, with where it starts, or null. */
function notPlainData(yaml: typeof Yaml, doc: Yaml.Document): { offset: number; what: string } | null {
  let found: { offset: number; what: string } | null = null;
  yaml.visit(doc, {
    Alias(_, node) {
      found = { offset: node.range?.[0] ?? 0, what: `an alias (*${node.source}) repeats another node; write the value out` };
      return yaml.visit.BREAK;
    },
    Pair(_, pair) {
      // Only a plain << merges: a quoted "<<" is an ordinary key, as in JSON.
      if (yaml.isScalar(pair.key) && pair.key.value === '<<' && pair.key.type === 'PLAIN') {
        found = { offset: pair.key.range?.[0] ?? 0, what: 'a merge key (<<) copies another mapping in; write its fields out' };
        return yaml.visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function refused(message: string): PlanText {
  return { ok: false, errors: [{ code: 'malformed_input', path: '', message }] };
}

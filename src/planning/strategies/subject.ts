// Recognising an investigation of a service-like subject in an intention's objective.
//
// The rule (documented in docs/planner.md):
// 1. The objective must ask for an investigation: it contains one of the cue words
//    investigate, diagnose, troubleshoot, debug, inspect, examine, why, or one of the phrases
//    "find out", "look into", "what's wrong" / "what is wrong" (any case).
// 2. The subject is the first word that is a complete unit name ("atlas-worker.service",
//    "nginx.socket"), surrounding punctuation and a trailing 's removed.
// 3. Failing that, a bare name is taken from a few fixed shapes and given ".service":
//    - "<verb> [the] NAME" with verb investigate/diagnose/troubleshoot/debug/inspect/examine,
//      where NAME ends the objective or is followed by service, unit, daemon, on, failures,
//      errors, crashes, problems, issues, outages, restarts or a comma;
//    - "why [is|does|did|was|are|has|do] [the] NAME [service|unit|daemon] [keep(s)|still]
//      <trouble>", trouble being failing, failed, down, crashing, crashed, restarting, dead,
//      inactive, stopped, broken, erroring, slow, unhealthy, flapping, hanging, hung or "not";
//    - "what's wrong with [the] NAME".
//    Generic words (it, this, host, system, server, disk, memory, ...) are never names.
// 4. The unit must pass checkUnitName; otherwise there is no subject.

import { checkUnitName } from '../../capabilities/unit-name.ts';

const CUE = /\b(?:investigat\w*|diagnos\w*|troubleshoot\w*|debug\w*|inspect\w*|examin\w*|why)\b|\bfind out\b|\blook into\b|\bwhat(?:'s|\s+is)\s+wrong\b/i;
const NAME = '([a-z0-9][a-z0-9_@.-]*)';
const VERB_SHAPE = new RegExp(
  `\\b(?:investigate|diagnose|troubleshoot|debug|inspect|examine)\\s+(?:the\\s+)?${NAME}` +
    `(?=\\s*$|\\s*,|\\s+(?:service|unit|daemon|on|failures?|errors?|crash(?:es)?|problems?|issues?|outages?|restarts?)\\b)`,
  'i',
);
const WHY_SHAPE = new RegExp(
  `\\bwhy\\s+(?:(?:is|does|did|was|are|has|do)\\s+)?(?:the\\s+)?${NAME}\\s+(?:(?:service|unit|daemon)\\s+)?(?:(?:keeps?|still)\\s+)?` +
    '(?:failing|failed|fails|down|crashing|crashed|crashes|restarting|dead|inactive|stopped|broken|erroring|slow|unhealthy|flapping|hanging|hung|not)\\b',
  'i',
);
const WRONG_SHAPE = new RegExp(`\\bwhat(?:'s|\\s+is)\\s+wrong\\s+with\\s+(?:the\\s+)?${NAME}`, 'i');

const GENERIC = new Set([
  'it',
  'this',
  'that',
  'there',
  'they',
  'we',
  'i',
  'you',
  'something',
  'everything',
  'anything',
  'nothing',
  'host',
  'system',
  'server',
  'machine',
  'box',
  'disk',
  'disks',
  'memory',
  'cpu',
  'network',
  'load',
  'service',
  'unit',
  'logs',
  'log',
  'a',
  'an',
  'my',
  'our',
  'its',
  'high',
  'the',
]);

export interface InvestigationSubject {
  unit: string;
  /** `named` when the objective names the unit in full, `inferred` when ".service" was added to a bare name. */
  how: 'named' | 'inferred';
}

function cleanWord(word: string): string {
  return word
    .replace(/^[("'`[]+/, '')
    .replace(/[)"'`\].,;:!?]+$/, '')
    .replace(/'s$/, '');
}

/** The service-like subject an objective asks to investigate, or null (pure). */
export function investigationSubject(objective: string): InvestigationSubject | null {
  if (typeof objective !== 'string' || !CUE.test(objective)) return null;
  for (const word of objective.split(/\s+/)) {
    const candidate = cleanWord(word);
    if (candidate.includes('.') && checkUnitName(candidate) === null) return { unit: candidate, how: 'named' };
  }
  for (const shape of [VERB_SHAPE, WHY_SHAPE, WRONG_SHAPE]) {
    const name = shape.exec(objective)?.[1]?.replace(/[.]+$/, '');
    if (!name || GENERIC.has(name.toLowerCase())) continue;
    const unit = checkUnitName(name) === null ? name : `${name}.service`;
    if (checkUnitName(unit) === null) return { unit, how: 'inferred' };
  }
  return null;
}

// The deterministic strategies, in preference order. The model comes after all of them.

import { diagnose } from './diagnose.ts';
import { direct } from './direct.ts';
import { diagnoseThenEscalate } from './escalate.ts';
import type { DeterministicStrategy } from './strategy.ts';

export const DETERMINISTIC_STRATEGIES: readonly DeterministicStrategy[] = Object.freeze([direct, diagnose, diagnoseThenEscalate]);

export { diagnosisConfidence, diagnosisOf, LOG_ACCESS_OPERATIONS, LOG_ACCESS_SECONDS, LOG_LINES, type Diagnosis } from './diagnosis.ts';
export { READ_CONFIDENCE, UNVERIFIED_WRITE_CONFIDENCE } from './direct.ts';
export { whatWasSeen } from './escalate.ts';
export {
  MAX_ANSWER_CHARS,
  MODEL_CONFIDENCE,
  buildModelMessages,
  interpretModelAnswer,
  withPraxisFields,
  type ChatMessage,
  type ModelAnswer,
} from './model.ts';
export { investigationSubject, type InvestigationSubject } from './subject.ts';
export type { DeterministicStrategy, StrategyAttempt, StrategyContext } from './strategy.ts';
export { WRITE_EFFECTS, writeEffectOf, type WriteEffect } from './write-effects.ts';

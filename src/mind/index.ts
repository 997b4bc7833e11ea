// The mind model's public surface: minds, intentions, commitments, beliefs, predictions and
// calibration, procedural memory and the reconsideration rule. See docs/mind.md.

export { mayAdvance, mayRunOn } from './minds.ts';
export {
  MAX_OBJECTIVE_LENGTH,
  abandonIntention,
  abandonIntentionIn,
  blockIntention,
  checkIntentionInput,
  formIntention,
  formSubordinate,
  fulfilIntention,
  objectiveOfMeans,
  resumeIntention,
  resumeParent,
  suspendIntention,
  type Formed,
  type Fulfilment,
  type IntentionInput,
  type SubordinateInput,
  type WaitReason,
} from './intentions.ts';
export { checkCommitmentInput, releaseCommitment, takeCommitment, type CommitmentInput } from './commitments.ts';
export {
  BELIEF_LEARNING_RATE,
  addEvidence,
  formBelief,
  heldBeliefs,
  revisedConfidence,
  type BeliefInput,
  type EvidenceDirection,
  type EvidenceInput,
} from './beliefs.ts';
export {
  expireOverduePredictions,
  judgeObservation,
  makePrediction,
  predictionFromExpectation,
  resolvePrediction,
  type Judgement,
  type Observation,
  type PredictionLinks,
  type Resolution,
  type ResolutionInput,
} from './predictions.ts';
export { CALIBRATION_BUCKETS, calibrate, calibrationOf, type Calibration, type CalibrationBucket } from './calibration.ts';
export {
  UNVERIFIED_PROCEDURE_CONFIDENCE,
  VERIFIED_PROCEDURE_CONFIDENCE,
  describeProcedure,
  isEscalation,
  recordProcedure,
  type EarlierRevision,
  type Procedure,
  type ProcedureSource,
  type ProcedureStep,
  type Recorded,
} from './procedural-memory.ts';
export {
  FAILURE_KINDS,
  failedStrategiesOf,
  reconsider,
  recordReconsideration,
  type FailureKind,
  type Reconsideration,
  type ReconsiderationInput,
  type ReconsiderationSubject,
} from './reconsideration.ts';

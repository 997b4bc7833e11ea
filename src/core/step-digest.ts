// What one step of a stored plan came to, in the few fields that read it back as a story: the
// mind's findings (what a diagnosis observed) and the planner's account of an intention's earlier
// revisions. Both read the same digest of a step record, so it is stated once here.

import type { JsonValue } from './plan.ts';

export interface StepDigest {
  key: string;
  title: string;
  kind: string;
  capability: string;
  target: string;
  status: string;
  error: string;
  statusReason: string;
  /** What the step observed, when it observed anything (absent where nobody asked). */
  observation?: JsonValue | null;
}

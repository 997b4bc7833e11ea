// Wants: what a mind's intentions are formed for (docs/mind.md, "Wants and dreams"). Praxis
// records a want in two places. A dream may leave open wants (and draft plans for them). And an
// intention that could not be planned when it was fresh leaves its want suppressed: the want it
// was formed for, or, for an intention formed directly (by an operator, an agent), a want
// recorded then with the intention's objective. A suppressed want is not raised again by a
// dream; an operator can still form the same intention on purpose.

import type { IntentionReason } from '../core/vocabulary.ts';
import type { IntentionRecord, Repositories, WantRecord } from '../store/index.ts';

export const MAX_WANT_LENGTH = 2_000;

/** Suppresses the want behind a fresh intention that could not be planned, with its event. */
export async function suppressWantOf(repos: Repositories, intention: IntentionRecord, reason: IntentionReason): Promise<WantRecord | undefined> {
  const existing = await repos.wants.getByIntention(intention.id);
  let want: WantRecord | undefined;
  if (existing) want = await repos.wants.suppress(existing.id, reason);
  else {
    want = await repos.wants.create({
      mindId: intention.mindId,
      statement: intention.objective,
      origin: 'intention',
      status: 'suppressed',
      reason,
      intentionId: intention.id,
    });
  }
  if (!want) return undefined;
  await repos.events.append({
    type: 'want_suppressed',
    mindId: want.mindId,
    intentionId: intention.id,
    data: { want_id: want.id, statement: want.statement, reason },
  });
  return want;
}

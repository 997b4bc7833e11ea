// Dreams and wants as surfaces offer them (docs/mind.md, "Wants and dreams"). A dream is what a
// mind (or the agent speaking for it) leaves while nothing is being done: wants, and draft plans
// for them. A dream's draft is validated and kept with its result, always as a `draft` with
// origin `dream`, on an intention that waits suspended: nothing a dream leaves ever runs. A want
// the mind suppressed (an intention for it could not be planned) is not raised again. The whole
// dream is stored in one transaction, or, when any draft is not a plan at all, not at all.

import type { Principal } from '../access/permissions.ts';
import type { CapabilityRegistry } from '../capabilities/registry.ts';
import { InputError, type Problem } from '../core/errors.ts';
import type { JsonObject, ValidationIssue } from '../core/plan.ts';
import type { WantStatus } from '../core/vocabulary.ts';
import { heldBeliefs } from '../mind/beliefs.ts';
import { MAX_WANT_LENGTH } from '../mind/wants.ts';
import { assessProposal, type Assessment } from '../planning/assess.ts';
import { assumedBeliefIds } from '../planning/assumptions.ts';
import type { Store, WantRecord } from '../store/index.ts';
import { resolveMind } from './minds.ts';
import { decodeCursor, pageOf, pageSize, type Page, type PageRequest } from './pages.ts';

/** Wants and drafts one dream may leave. */
export const MAX_DREAM_ITEMS = 20;

export interface DreamInput {
  wants?: string[] | undefined;
  drafts?: unknown[] | undefined;
}

export interface Dreamt {
  wants: { id: string; statement: string }[];
  /** Statements not recorded because the mind suppressed that want (a draft for one is not stored either). */
  skipped: { statement: string; why: 'suppressed'; want_id: string }[];
  drafts: { plan_id: string; intention_id: string; want_id: string; valid: boolean; errors: ValidationIssue[] }[];
}

function checkDream(input: DreamInput): Problem[] {
  const problems: Problem[] = [];
  const wants = input.wants ?? [];
  const drafts = input.drafts ?? [];
  if (wants.length + drafts.length === 0) problems.push({ code: 'empty_dream', path: '', message: 'a dream leaves at least one want or draft' });
  if (wants.length > MAX_DREAM_ITEMS) problems.push({ code: 'too_many_items', path: 'wants', message: `at most ${MAX_DREAM_ITEMS} wants per dream` });
  if (drafts.length > MAX_DREAM_ITEMS) problems.push({ code: 'too_many_items', path: 'drafts', message: `at most ${MAX_DREAM_ITEMS} drafts per dream` });
  wants.forEach((w, i) => {
    if (typeof w !== 'string' || w.trim() === '' || w.length > MAX_WANT_LENGTH) {
      problems.push({ code: 'invalid_want', path: `wants[${i}]`, message: `a want is a statement of 1 to ${MAX_WANT_LENGTH} characters` });
    }
  });
  return problems;
}

export async function recordDream(store: Store, registry: CapabilityRegistry, principal: Principal, mindRef: string, input: DreamInput): Promise<Dreamt> {
  const mind = await resolveMind(store, principal, mindRef);
  const problems = checkDream(input);
  const assessed: Assessment[] = [];
  for (const [i, draft] of (input.drafts ?? []).entries()) {
    const assessment = assessProposal(draft, registry, { beliefs: await heldBeliefs(store, mind.id, assumedBeliefIds(draft)) });
    if (!assessment.draft) problems.push(...assessment.errors.map((e) => ({ ...e, path: e.path ? `drafts[${i}].${e.path}` : `drafts[${i}]` })));
    assessed.push(assessment);
  }
  if (problems.length > 0) throw new InputError(problems);

  return store.transaction(async (tx) => {
    const dreamt: Dreamt = { wants: [], skipped: [], drafts: [] };
    /** True (and reported) when the mind suppressed this want: a dream may not raise it again. */
    const suppressed = async (statement: string): Promise<boolean> => {
      const want = await tx.wants.findSuppressed(mind.id, statement);
      if (want) dreamt.skipped.push({ statement, why: 'suppressed', want_id: want.id });
      return want !== undefined;
    };
    const record = async (statement: string, extra: { intentionId?: string; planId?: string } = {}): Promise<WantRecord> => {
      const want = await tx.wants.create({ mindId: mind.id, statement, origin: 'dream', ...extra });
      await tx.events.append({
        type: 'want_recorded',
        mindId: mind.id,
        ...(extra.intentionId ? { intentionId: extra.intentionId } : {}),
        ...(extra.planId ? { planId: extra.planId } : {}),
        data: { want_id: want.id, statement, origin: 'dream', operator: principal.operator },
      });
      return want;
    };

    for (const statement of new Set((input.wants ?? []).map((w) => w.trim()))) {
      if (await suppressed(statement)) continue;
      const want = await record(statement);
      dreamt.wants.push({ id: want.id, statement });
    }
    for (const assessment of assessed) {
      const draft = assessment.draft!;
      const objective = draft.objective.trim() || '(a dream without an objective)';
      if (await suppressed(objective)) continue;
      // The intention a dream's draft serves waits suspended: nothing of a dream acts.
      const formed = await tx.intentions.create({ mindId: mind.id, objective, origin: 'dream', authoredBy: principal.operator });
      const intention = (await tx.intentions.transition(formed.id, 'active', 'suspended', ''))!;
      const validation = { valid: assessment.valid, errors: assessment.errors, warnings: assessment.warnings, estimate: assessment.estimate! };
      const plan = await tx.plans.create({
        mindId: mind.id,
        intentionId: intention.id,
        origin: 'dream',
        draft,
        validation,
        status: 'draft',
        statusReason: assessment.valid ? 'a dream: kept as a draft, never run' : `a dream with ${assessment.errors.length} validation error(s)`,
        authoredBy: principal.operator,
      });
      const where = { mindId: mind.id, intentionId: intention.id };
      await tx.events.appendMany([
        { type: 'intention_formed', ...where, data: { objective, origin: 'dream' } },
        { type: 'intention_suspended', ...where, data: { reason: '', why: 'a dream: nothing it leaves runs' } },
        { type: 'plan_created', ...where, planId: plan.id, data: { origin: 'dream', steps: plan.steps.length, valid: assessment.valid, errors: assessment.errors.length } as JsonObject },
      ]);
      const want = await record(objective, { intentionId: intention.id, planId: plan.id });
      dreamt.drafts.push({ plan_id: plan.id, intention_id: intention.id, want_id: want.id, valid: assessment.valid, errors: assessment.errors });
    }
    return dreamt;
  });
}

export async function listWants(store: Store, principal: Principal, mindRef: string, input: PageRequest & { status?: WantStatus | undefined }): Promise<Page<WantRecord>> {
  const limit = pageSize(input);
  const beforeId = input.cursor === undefined ? undefined : decodeCursor('id', input.cursor);
  const mind = await resolveMind(store, principal, mindRef);
  const rows = await store.wants.listPage(mind.id, {
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(beforeId !== undefined ? { beforeId } : {}),
    limit: limit + 1,
  });
  return pageOf(rows, limit, (w) => w.id, 'id');
}

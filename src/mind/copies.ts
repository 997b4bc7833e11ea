// Forking, exporting and importing a mind: the I/O around bundle.ts. A fork is an import of the
// source's bundle under a new name, as a disabled sandbox. Making the new mind is one
// transaction: its rows, the quiescing of what it inherited, and the events saying so all
// commit together, or (a name taken, a row the store refuses) nothing does.

import type { Problem } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { NewEvent } from '../store/repositories/events.ts';
import type { MindRecord, Store } from '../store/index.ts';
import { bundleOf, checkBundle, mindFromBundle, type MindBundle, type Quiesced } from './bundle.ts';

export interface MindCopy {
  mind: MindRecord;
  /** How many rows of each table the new mind got. */
  copied: Record<string, number>;
  quiesced: { plans: number; steps: number; intentions: number };
}

export type MadeMind =
  | { ok: true; copy: MindCopy }
  /** `name_taken` when the name is in use; otherwise the bundle's problems. Nothing was written. */
  | { ok: false; nameTaken: boolean; problems: Problem[] };

/** The mind as a bundle, read as one consistent moment; undefined when there is no such mind. */
export async function exportMind(store: Store, mindId: string): Promise<MindBundle | undefined> {
  const rows = await store.mindBundles.read(mindId);
  return rows && bundleOf(rows, store.clock.now());
}

interface Making {
  name: string;
  status: 'active' | 'disabled';
  sandbox: boolean;
  host: string | null;
  /** The event naming where the mind came from, written on the new mind. */
  event: { type: 'mind_forked' | 'mind_imported'; data: Record<string, string | null> };
  /** An event for the source mind's own timeline (a fork in the same store). */
  sourceEvent?: NewEvent;
}

function quiescingEvents(mindId: string, quiesced: Quiesced): NewEvent[] {
  return [
    ...quiesced.plans.map((p): NewEvent => ({ type: 'plan_blocked', mindId, intentionId: p.intentionId, planId: p.id, data: { reason: 'quiesced' } })),
    ...quiesced.steps.map((s): NewEvent => ({ type: 'plan_step_blocked', mindId, intentionId: s.intentionId, planId: s.planId, stepId: s.id, data: { key: s.key, reason: 'quiesced' } })),
    ...quiesced.intentions.map((id): NewEvent => ({ type: 'intention_suspended', mindId, intentionId: id, data: { reason: 'quiesced' } })),
  ];
}

function nameTaken(name: string): MadeMind {
  return { ok: false, nameTaken: true, problems: [{ code: 'name_taken', path: 'name', message: `a mind named "${name}" already exists` }] };
}

async function makeMind(store: Store, bundle: MindBundle, making: Making): Promise<MadeMind> {
  const { rows, quiesced } = mindFromBundle(bundle, { ...making, now: store.clock.now(), newId });
  const mindId = rows.mind.id as string;
  const copied = Object.fromEntries(Object.entries(rows.tables).map(([table, list]) => [table, list.length]));
  const counts = { plans: quiesced.plans.length, steps: quiesced.steps.length, intentions: quiesced.intentions.length };
  try {
    const mind = await store.transaction(async (tx) => {
      if (await tx.minds.getByName(making.name)) return undefined;
      await tx.mindBundles.write(rows);
      await tx.events.appendMany([
        { type: making.event.type, mindId, data: { ...making.event.data, copied, quiesced: counts } },
        ...quiescingEvents(mindId, quiesced),
        ...(making.sourceEvent ? [making.sourceEvent] : []),
      ]);
      return tx.minds.get(mindId);
    });
    if (!mind) return nameTaken(making.name);
    return { ok: true, copy: { mind, copied, quiesced: counts } };
  } catch (error) {
    // A creator racing past the name check loses on the unique index.
    if (await store.minds.getByName(making.name)) return nameTaken(making.name);
    // Anything else the store refused (a duplicate policy rule, two steps with one key...): the
    // bundle, not Praxis, is at fault, and the transaction wrote nothing.
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, nameTaken: false, problems: [{ code: 'bundle_refused', path: '', message: `the store refused the bundle's rows: ${reason}` }] };
  }
}

/** A disabled sandbox copy of `source` named `name`, with its inherited work quiesced. */
export async function forkMind(store: Store, source: MindRecord, name: string, operator: string): Promise<MadeMind> {
  const bundle = await exportMind(store, source.id);
  if (!bundle) return { ok: false, nameTaken: false, problems: [{ code: 'unknown_mind', path: 'mind', message: `no mind with id ${source.id}` }] };
  return makeMind(store, bundle, {
    name,
    status: 'disabled',
    sandbox: true,
    host: source.host,
    event: { type: 'mind_forked', data: { source_mind_id: source.id, source_name: source.name, operator } },
    sourceEvent: { type: 'mind_forked', mindId: source.id, data: { fork_name: name, operator } },
  });
}

/**
 * A new mind from untrusted bundle input, named `name` or the bundle's own name. It keeps the
 * bundle's status, sandbox flag and host; its inherited work is quiesced whatever they are.
 */
export async function importMind(store: Store, input: unknown, operator: string, name?: string): Promise<MadeMind> {
  const checked = checkBundle(input);
  if (!checked.ok) return { ok: false, nameTaken: false, problems: checked.problems };
  const { bundle } = checked;
  const source = bundle.mind;
  return makeMind(store, bundle, {
    name: name ?? (source.name as string),
    status: source.status as 'active' | 'disabled',
    sandbox: source.sandbox as boolean,
    host: source.host as string | null,
    event: {
      type: 'mind_imported',
      data: { source_mind_id: source.id as string, source_name: source.name as string, exported_at: bundle.exported_at, operator },
    },
  });
}

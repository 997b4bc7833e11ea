// A capability call's record in the event log, stored as one row where it would be three or four.
// An allowed call that is acted on at once tells three facts in a row: the policy decision, the
// authorisation, and the execution (or its failure), all naming the same mind, intention and
// origin, all written in the same commit; when the call was a plan step's and the step completes
// with it, the step's move follows in the same commit. As rows of their own they were four of the
// five rows an executor's step wrote, each with its primary key, its unique id and its index
// entries, and SQLite's cost per row is what bounded a step.
//
// The row is a *call row*: its type says which events it holds, its data is their data objects in
// order, and it takes as many consecutive seqs as it holds events, of which it stores the last.
// Every read of the log expands it back into its events (EventRepository is the only reader of
// the table), each with a seq of its own and an id of its own, so no reader sees a difference:
// pages may end anywhere, a reader resumes after any event's seq, an event is found by its id.
// The call's events name no plan or step (they never did); the step's move names both, and the
// row carries them for it, so a plan's read finds the row and keeps only the move.
//
// Only SQLite writes them. A row may take several seqs there because one writer at a time holds
// the log, and the insert takes its seqs explicitly from the log's high-water mark
// (sqlite_sequence) under that lock. PostgreSQL hands seqs to concurrent writers from a sequence,
// which has no way to give one writer consecutive values without a lock on the log; there a call
// stays separate rows (its targets are met by batching), and its reads look for none.

import type { JsonObject } from '../core/plan.ts';
import { EVENT_TYPES, type EventType } from '../core/vocabulary.ts';
import type { EventRecord, NewEvent } from './repositories/events.ts';

/**
 * The stored types of call rows, by the events each holds, in order. A row whose last event is a
 * step's move (`step`) carries that step's plan and step ids; its call's events name neither.
 */
const CALL_ROWS = {
  tool_call_executed: { parts: ['policy_decision', 'tool_authorised', 'tool_executed'], step: false },
  tool_call_failed: { parts: ['policy_decision', 'tool_authorised', 'tool_failed'], step: false },
  tool_call_step_completed: { parts: ['policy_decision', 'tool_authorised', 'tool_executed', 'plan_step_completed'], step: true },
} as const satisfies Record<string, { parts: readonly EventType[]; step: boolean }>;

export type CallRowType = keyof typeof CALL_ROWS;

/** What the events table's type column may hold: an event's type, or a call row's. */
export type StoredEventType = EventType | CallRowType;

export const CALL_ROW_TYPES = Object.keys(CALL_ROWS) as CallRowType[];

/**
 * The types the events table's check admits (migrations/event-type-check.ts). The call rows come
 * first: SQLite tests the check's equalities in order, and they are most of an executor's rows
 * (0.3 µs a row matched first, 0.75 matched last among 63).
 */
export const STORED_EVENT_TYPES: readonly StoredEventType[] = [...CALL_ROW_TYPES, ...EVENT_TYPES];

/** The most events a stored row holds: how far a read by seq must reach past its bound (eventsQuery). */
export const MOST_EVENTS_A_ROW = Math.max(...CALL_ROW_TYPES.map((type) => CALL_ROWS[type].parts.length));

/** How many seqs (and events) a stored row of `type` holds. */
export function spanOf(type: StoredEventType): number {
  return isCallRow(type) ? CALL_ROWS[type].parts.length : 1;
}

function isCallRow(type: StoredEventType): type is CallRowType {
  return Object.hasOwn(CALL_ROWS, type);
}

/**
 * The call row that the events from `at` on fold into, or undefined when they are not one call's
 * record; they were appended together (a row has one time). The call's three must be those types
 * in that order, name the same mind, intention and origin and no plan or step, and leave the
 * decision's and authorisation's ids to the store (derived from the row's: partId); the
 * outcome's own id, if its writer chose it, is the row's. A completed
 * step's move joins when it is next, names the same mind and intention and the step the call's
 * origin names, and leaves its id to the store too.
 */
export function callRowAt(events: readonly NewEvent[], at: number): CallRowType | undefined {
  const decision = events[at];
  if (decision?.type !== 'policy_decision') return undefined;
  const authorisation = events[at + 1];
  const outcome = events[at + 2];
  const move = events[at + 3];
  if (authorisation?.type !== 'tool_authorised' || !outcome) return undefined;
  if (decision.id !== undefined || authorisation.id !== undefined) return undefined;
  const executed = outcome.type === 'tool_executed';
  if (!executed && outcome.type !== 'tool_failed') return undefined;
  const origin = decision.data?.origin;
  for (const part of [decision, authorisation, outcome]) {
    if (!sameIn(part, decision, 'mindId') || !sameIn(part, decision, 'intentionId')) return undefined;
    if ((part.planId ?? null) !== null || (part.stepId ?? null) !== null || part.data?.origin !== origin) return undefined;
  }
  const completes =
    executed &&
    move !== undefined &&
    move.type === 'plan_step_completed' &&
    move.id === undefined &&
    sameIn(move, decision, 'mindId') &&
    sameIn(move, decision, 'intentionId') &&
    typeof move.stepId === 'string' &&
    origin === `plan_step:${move.stepId}`;
  if (completes) return 'tool_call_step_completed';
  return executed ? 'tool_call_executed' : 'tool_call_failed';
}

function sameIn(a: NewEvent, b: NewEvent, key: 'mindId' | 'intentionId'): boolean {
  return (a[key] ?? null) === (b[key] ?? null);
}

/**
 * The stored types a read for events of `types` must look at: those types, and every call row
 * holding one of them, among the events that name the row's plan when the read is for one plan's
 * events (`ofAPlan`: only a step's move does; a call's events name none). So every row the read
 * finds holds at least one event it wants, and a page of rows is never a page of nothing.
 */
export function storedTypesFor(types: readonly EventType[], ofAPlan = false): StoredEventType[] {
  const wanted = new Set<StoredEventType>(types);
  for (const type of CALL_ROW_TYPES) {
    const { parts, step } = CALL_ROWS[type];
    // Without a step, no event of the row names a plan: the plan's read never finds the row.
    const named = ofAPlan ? (step ? parts.slice(-1) : []) : parts;
    if (named.some((part) => wanted.has(part))) wanted.add(type);
  }
  return [...wanted];
}

/**
 * The id of a call row's event at `part`: the row's id (the call's outcome's, which a prediction
 * cites) for the outcome, and otherwise that id with its last hex digit changed (xor 1, 2 or 3).
 * Deriving them keeps them out of the row and lets a read by id find the row from any of its
 * events' ids (idCandidates). A v7 uuid's last digit is random, so a derived id is as unlikely to
 * meet another id as any two random ones.
 */
export function partId(rowId: string, part: number): string {
  const flip = [1, 2, 0, 3][part] ?? 0;
  return flip === 0 ? rowId : (withLastDigitXor(rowId, flip) ?? rowId);
}

/** The ids a stored row holding the event `id` may have: `id` itself, or the row whose part it is. */
export function idCandidates(id: string): string[] {
  const candidates = [id];
  for (const flip of [1, 2, 3]) {
    const other = withLastDigitXor(id, flip);
    if (other !== undefined) candidates.push(other);
  }
  return candidates;
}

function withLastDigitXor(id: string, flip: number): string | undefined {
  const digit = Number.parseInt(id.slice(-1), 16);
  if (Number.isNaN(digit)) return undefined;
  return id.slice(0, -1) + (digit ^ flip).toString(16);
}

/** A stored row, decoded: an event's record, except that its type and data may be a call row's. */
export type StoredRecord = Omit<EventRecord, 'type' | 'data'> & { type: StoredEventType; data: unknown };

/**
 * The events a stored row holds, oldest first (newest first when asked): itself, or a call row's,
 * at the seqs up to and including its own. A call row whose data is not one object for each of
 * its events is refused: the log is never read as less than it says.
 */
export function expandRow(row: StoredRecord, newestFirst = false): EventRecord[] {
  if (!isCallRow(row.type)) return [row as EventRecord];
  const { parts, step } = CALL_ROWS[row.type];
  const data = row.data;
  if (!Array.isArray(data) || data.length !== parts.length) throw new TypeError(`event row ${row.id} (${row.type}) does not hold its ${parts.length} events' data`);
  const events: EventRecord[] = [];
  for (let part = 0; part < parts.length; part += 1) {
    // Only a step's move names the plan and step; the call's events did not.
    const named = !step || part === parts.length - 1;
    events.push({
      seq: row.seq - parts.length + 1 + part,
      id: partId(row.id, part),
      type: parts[part]!,
      mindId: row.mindId,
      intentionId: row.intentionId,
      planId: named ? row.planId : null,
      stepId: named ? row.stepId : null,
      data: data[part] as JsonObject,
      createdAt: row.createdAt,
    });
  }
  return newestFirst ? events.reverse() : events;
}

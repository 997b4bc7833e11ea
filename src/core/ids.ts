import { v7, validate as isUuid } from 'uuid';

// uuid's v7 asks the system for 16 random bytes on every call, which showed up as 5–6 % of the
// executor's CPU in a busy pass (every event, execution and step move names a new id). The bytes
// are taken here from a pool refilled 4 KiB at a time, and the same rule as uuid's keeps ids
// made within one millisecond in creation order: a random 31-bit counter at each new
// millisecond, counting up within it.
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let taken = POOL_BYTES;
const clock = { msecs: Number.NEGATIVE_INFINITY, seq: 0 };

function randomBytes16(): Uint8Array {
  if (taken + 16 > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    taken = 0;
  }
  const bytes = pool.subarray(taken, taken + 16);
  taken += 16;
  return bytes;
}

/** Time-ordered ids, so primary-key order follows creation order. */
export function newId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    clock.seq = (clock.seq + 1) | 0;
    // The counter ran over within one millisecond: borrow the next one, as uuid does.
    if (clock.seq === 0) clock.msecs += 1;
  }
  return v7({ random, msecs: clock.msecs, seq: clock.seq });
}

/**
 * True for a UUID in lower case, as Praxis writes every id. Upper case is refused rather than
 * matched: PostgreSQL compares uuids whatever their case while SQLite compares text, so the same
 * id would find a record on one store and not on the other.
 */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && isUuid(value) && value === value.toLowerCase();
}

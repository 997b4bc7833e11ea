// Whether the executor holding a claim is known to be gone, so that its claim is taken over at
// once instead of after its whole lease (150 s and more for a restart). An executor's name is
// `host:pid:suffix` (newExecutorName). Two ways of knowing, and anything else is not known:
//
// - On this host, a claimant whose process no longer exists has certainly stopped (a process
//   that exists, whoever it may be after PID reuse, is not known to be gone).
// - On another host, sharing a PostgreSQL store, a claimant whose presence lock nobody has held
//   for PRESENCE_GRACE_MS (src/store/presence.ts). Only names with an eight-digit suffix say
//   their executor keeps presence: earlier versions named theirs with six digits and held no
//   lock, and a daemon of such a version must not be judged gone while it runs beside newer ones.
//
// The lease stays the backstop for every other claimant.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

const NAME = /^(.+):(\d+):[0-9a-f]+$/;
const PRESENCE_NAME = /^.+:\d+:[0-9a-f]{8}$/;

/**
 * How long a claimant's presence must have been seen absent, at a first look and again at a
 * later one, before it is judged gone. A live executor loses its lock for a moment when its
 * connection or the server restarts; it takes it again within about a second
 * (PRESENCE_MAX_RETRY_MS), well inside the grace.
 */
export const PRESENCE_GRACE_MS = 2_000;

/** The default name of an executor of this process: `host:pid:` and eight hex digits (a name that keeps presence). */
export function newExecutorName(host = hostname()): string {
  return `${host}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** The parts of an executor name of the default shape; null for any other name. */
export function claimantOf(name: string): { host: string; pid: number } | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const pid = Number(match[2]);
  return Number.isSafeInteger(pid) && pid > 0 ? { host: match[1]!, pid } : null;
}

/** True when `name` is another executor process on this host: one whose end claimantGone can see. */
export function claimantHere(name: string, here = hostname()): boolean {
  const claimant = claimantOf(name);
  return claimant !== null && claimant.host === here && claimant.pid !== process.pid;
}

/** True only when `name` ran on this host in a process that no longer exists. */
export function claimantGone(name: string, here = hostname(), exists: (pid: number) => boolean = processExists): boolean {
  if (!claimantHere(name, here)) return false;
  return !exists(claimantOf(name)!.pid);
}

/** True when `name` says its executor keeps presence (an eight-digit suffix): its lock tells whether it still runs. */
export function keepsPresence(name: string): boolean {
  return PRESENCE_NAME.test(name) && claimantOf(name) !== null;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else. Only ESRCH says there is no such process.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** What a look at the claimants of live claims found. */
export interface ClaimantsJudged {
  /** Known to be gone: their claims are taken over now. */
  gone: string[];
  /** Not known to be gone, but whose end would be seen: worth looking at again soon. */
  watched: string[];
}

/**
 * What an executor has seen of other executors holding claims, and the judgement on them. Kept
 * by the executor from look to look: it remembers since when each claimant on another host has
 * looked absent. A look covers every claimant of live claims at the time, so one not looked at is
 * forgotten.
 */
export class ClaimantWatch {
  readonly #absentSince = new Map<string, number>();
  readonly #here: string;
  readonly #exists: (pid: number) => boolean;

  constructor(here = hostname(), exists: (pid: number) => boolean = processExists) {
    this.#here = here;
    this.#exists = exists;
  }

  /**
   * The claimants of `names` whose presence the store should be asked about (for `judge`): those
   * on other hosts that keep presence, and those of this host that keep it and whose process is
   * gone (a machine of the same host name sharing the store would still hold its lock).
   */
  toAsk(names: readonly string[]): string[] {
    return names.filter((name) => keepsPresence(name) && (this.#elsewhere(name) || claimantGone(name, this.#here, this.#exists)));
  }

  /**
   * Judges `names` (other executors holding live claims) at `now` (monotonic milliseconds).
   * `absent`: of the names `toAsk` gave, those whose presence nobody holds; null where the store
   * keeps no presence. A claimant of this host is gone when its process is gone (and, where
   * presence is kept and its name keeps it, its lock is free too); one of another host when its
   * lock was free at this look and at one at least PRESENCE_GRACE_MS before.
   */
  judge(names: readonly string[], absent: readonly string[] | null, now = performance.now()): ClaimantsJudged {
    const missing = new Set(absent ?? []);
    const gone: string[] = [];
    const watched: string[] = [];
    const elsewhere = new Set<string>();
    for (const name of new Set(names)) {
      if (claimantHere(name, this.#here)) {
        const ended = claimantGone(name, this.#here, this.#exists) && (absent === null || !keepsPresence(name) || missing.has(name));
        (ended ? gone : watched).push(name);
      } else if (absent !== null && keepsPresence(name) && this.#elsewhere(name)) {
        elsewhere.add(name);
        const since = missing.has(name) ? (this.#absentSince.get(name) ?? now) : undefined;
        if (since === undefined) this.#absentSince.delete(name);
        else this.#absentSince.set(name, since);
        (since !== undefined && now - since >= PRESENCE_GRACE_MS ? gone : watched).push(name);
      }
    }
    for (const name of [...this.#absentSince.keys()]) if (!elsewhere.has(name)) this.#absentSince.delete(name);
    return { gone, watched };
  }

  /** On another host by its name (an executor of this process, or of this host, is not). */
  #elsewhere(name: string): boolean {
    const claimant = claimantOf(name);
    return claimant !== null && claimant.host !== this.#here;
  }
}

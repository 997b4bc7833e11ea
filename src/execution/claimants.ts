// Whether the executor holding a claim is known to be gone, so that its claim is taken over at
// once instead of after its whole lease (150 s and more for a restart). An executor's name is
// `host:pid:suffix` (newExecutorName). Two ways of knowing, and anything else is not known:
//
// - On this host, a claimant whose process no longer exists has certainly stopped (a process
//   that exists, whoever it may be after PID reuse, is not known to be gone).
// - Sharing a PostgreSQL store, a claimant whose presence lock nobody has held for
//   PRESENCE_GRACE_MS (src/store/presence.ts), and on this host whose process is gone as well.
//   Only names with an eight-digit suffix say their executor keeps presence: earlier versions
//   named theirs with six digits and held no lock, and a daemon of such a version must not be
//   judged gone while it runs beside newer ones.
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
 * Looks at a claimant further apart than this do not make its absence one: a lock free at two
 * looks with no look between them for longer might have been held in between (two blips).
 */
export const PRESENCE_LOOK_GAP_MS = 5_000;

/**
 * What an executor has seen of other executors holding claims, and the judgement on them. Kept
 * by the executor from look to look: it remembers since when each claimant judged by its
 * presence has looked absent. A look covers every claimant of live claims at the time, so one not
 * looked at is forgotten.
 */
export class ClaimantWatch {
  readonly #absent = new Map<string, { since: number; seen: number }>();
  readonly #here: string;
  readonly #exists: (pid: number) => boolean;

  constructor(here = hostname(), exists: (pid: number) => boolean = processExists) {
    this.#here = here;
    this.#exists = exists;
  }

  /**
   * The claimants of `names` whose presence the store should be asked about (for `judge`): those
   * that keep presence, on other hosts, or on this host with their process gone (a machine of
   * the same host name sharing the store, or a container of its own process namespace, would
   * still hold its lock).
   */
  toAsk(names: readonly string[]): string[] {
    return names.filter((name) => keepsPresence(name) && (this.#elsewhere(name) || claimantGone(name, this.#here, this.#exists)));
  }

  /**
   * Judges `names` (other executors holding live claims) at `now` (monotonic milliseconds).
   * `absent`: of the names `toAsk` gave, those whose presence nobody holds; null where the store
   * keeps no presence. Where it keeps none, or the name does not keep it, a claimant of this host
   * is gone when its process is gone. A claimant that keeps presence is gone when its lock (and,
   * on this host, its process) has been seen free at looks spanning PRESENCE_GRACE_MS, none
   * further apart than PRESENCE_LOOK_GAP_MS.
   */
  judge(names: readonly string[], absent: readonly string[] | null, now = performance.now()): ClaimantsJudged {
    const missing = new Set(absent ?? []);
    const gone: string[] = [];
    const watched: string[] = [];
    const looked = new Set<string>();
    for (const name of new Set(names)) {
      const here = claimantHere(name, this.#here);
      const byPresence = absent !== null && keepsPresence(name) && (here || this.#elsewhere(name));
      if (!byPresence) {
        if (here) (claimantGone(name, this.#here, this.#exists) ? gone : watched).push(name);
        continue;
      }
      looked.add(name);
      const last = this.#absent.get(name);
      if (!missing.has(name)) {
        this.#absent.delete(name);
        watched.push(name);
        continue;
      }
      const since = last && now - last.seen <= PRESENCE_LOOK_GAP_MS ? last.since : now;
      this.#absent.set(name, { since, seen: now });
      (now - since >= PRESENCE_GRACE_MS ? gone : watched).push(name);
    }
    for (const name of [...this.#absent.keys()]) if (!looked.has(name)) this.#absent.delete(name);
    return { gone, watched };
  }

  /** Forgets every absence seen so far: the next look starts each one afresh. */
  forget(): void {
    this.#absent.clear();
  }

  /** On another host by its name (an executor of this process, or of this host, is not). */
  #elsewhere(name: string): boolean {
    const claimant = claimantOf(name);
    return claimant !== null && claimant.host !== this.#here;
  }
}

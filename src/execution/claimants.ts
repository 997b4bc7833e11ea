// Whether the executor holding a claim is known to be gone. An executor's name is
// `host:pid:suffix` (Executor's default); a claimant on this host whose process no longer exists
// has certainly stopped, so its claim can be taken over at once instead of after its whole
// lease (150 s and more for a restart). Anything else (another host, a name of another shape, a
// process that exists, whoever it may be after PID reuse) is not known to be gone, and the lease
// stays the backstop.

import { hostname } from 'node:os';

const NAME = /^(.+):(\d+):[0-9a-f]+$/;

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

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else. Only ESRCH says there is no such process.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

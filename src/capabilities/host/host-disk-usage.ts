// host.disk.usage: statfs of one path (default `/`), plus every real mounted file system.
// Mounts come from <procRoot>/self/mounts. Pseudo file systems (proc, sysfs, cgroup, …) and
// read-only images that are always full (squashfs snaps, ISO images) are left out; tmpfs is
// kept, because a full /run or /dev/shm breaks services as surely as a full disk.

import { statfs as fsStatfs } from 'node:fs/promises';
import { posix } from 'node:path';
import type { JsonObject } from '../../core/plan.ts';
import { CapabilityError } from '../implementation.ts';
import type { CapabilityImplementation } from '../implementation.ts';
import { DEFAULT_PROC_ROOT, percent, readProcFile, throwIfAborted } from './proc-files.ts';

export const MAX_FILESYSTEMS = 100;
/** How long one mount may take to answer statfs before it is left out (a hung network mount). */
export const MOUNT_STATFS_TIMEOUT_MS = 2_000;

export const SKIPPED_FS_TYPES: ReadonlySet<string> = new Set([
  'proc',
  'sysfs',
  'cgroup',
  'cgroup2',
  'devpts',
  'devtmpfs',
  'mqueue',
  'hugetlbfs',
  'debugfs',
  'tracefs',
  'securityfs',
  'pstore',
  'bpf',
  'configfs',
  'fusectl',
  'autofs',
  'binfmt_misc',
  'rpc_pipefs',
  'nsfs',
  'efivarfs',
  'selinuxfs',
  'ramfs',
  'squashfs',
  'iso9660',
  'fuse.gvfsd-fuse',
  'fuse.portal',
]);

export interface StatfsResult {
  bsize: number | bigint;
  blocks: number | bigint;
  bfree: number | bigint;
  bavail: number | bigint;
}
export type StatfsFunction = (path: string) => Promise<StatfsResult>;

export interface Mount {
  mount: string;
  type: string;
}

export interface FilesystemUsage extends JsonObject {
  mount: string;
  type: string;
  total_bytes: number;
  used_bytes: number;
  available_bytes: number;
  /** Used share of the space an unprivileged user can have (used / (used + available)), like df. */
  used_percent: number;
}

export interface DiskUsage extends JsonObject {
  filesystems: FilesystemUsage[];
  path: string;
  used_percent: number;
  available_bytes: number;
  total_bytes: number;
}

/** /proc/self/mounts decodes `\040`-style octal escapes (space, tab, newline, backslash). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Mount points in mount order; a mount point mounted over again appears once, at its last mount. */
export function parseMounts(text: string): Mount[] {
  const byPoint = new Map<string, Mount>();
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    const mount = unescapeMountField(fields[1]!);
    const type = fields[2]!;
    if (!mount.startsWith('/')) continue;
    byPoint.delete(mount);
    byPoint.set(mount, { mount, type });
  }
  return [...byPoint.values()];
}

export function isRealFilesystem(type: string): boolean {
  return !SKIPPED_FS_TYPES.has(type);
}

export function usageOf(stats: StatfsResult): { total_bytes: number; used_bytes: number; available_bytes: number; used_percent: number } {
  const bsize = Number(stats.bsize);
  const total = Number(stats.blocks) * bsize;
  const free = Number(stats.bfree) * bsize;
  const available = Number(stats.bavail) * bsize;
  const used = Math.max(0, total - free);
  return { total_bytes: total, used_bytes: used, available_bytes: available, used_percent: percent(used, used + available) };
}

/** `promise`'s value, or undefined once `ms` have passed or `signal` is aborted, whichever is first. */
function withTimeout<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    onAbort = () => resolve(undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}

/**
 * statfs, with at most one call in flight per place: a call for a path whose earlier statfs has
 * not answered yet (a hard-mounted network file system that is down) waits for that one instead
 * of starting another, and so does a call for any path below a path whose statfs has gone
 * unanswered past `hungAfterMs` (`/mnt/nfs/a` once `/mnt/nfs` hangs). Paths are compared
 * normalised (`/mnt//nfs/.` is `/mnt/nfs`). Each unanswered statfs holds one of libuv's four pool
 * threads until the mount comes back, and with them gone every file read and DNS lookup of the
 * daemon waits too.
 */
function sharedStatfs(statfs: StatfsFunction, hungAfterMs: number): StatfsFunction {
  const inFlight = new Map<string, Promise<StatfsResult>>();
  const hung = new Set<string>();
  return (asked) => {
    const path = normalisedPath(asked);
    const pending = inFlight.get(path);
    if (pending) return pending;
    for (const place of hung) {
      if (place !== '/' && path.startsWith(`${place}/`)) return inFlight.get(place)!;
    }
    const call = statfs(path);
    inFlight.set(path, call);
    const timer = setTimeout(() => hung.add(path), hungAfterMs);
    timer.unref();
    const settled = () => {
      clearTimeout(timer);
      hung.delete(path);
      inFlight.delete(path);
    };
    call.then(settled, settled);
    return call;
  };
}

/** `path` without repeated or trailing slashes and `.` segments (it holds no `..`: checked before). */
function normalisedPath(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

export interface DiskUsageOptions {
  procRoot?: string;
  statfs?: StatfsFunction;
  /** How long each mount may take to answer; MOUNT_STATFS_TIMEOUT_MS by default. */
  mountTimeoutMs?: number;
}

const defaultStatfs: StatfsFunction = (path) => fsStatfs(path, { bigint: true });

export function hostDiskUsageImplementation({
  procRoot = DEFAULT_PROC_ROOT,
  statfs: statfsOf = defaultStatfs,
  mountTimeoutMs = MOUNT_STATFS_TIMEOUT_MS,
}: DiskUsageOptions = {}): CapabilityImplementation {
  const statfs = sharedStatfs(statfsOf, mountTimeoutMs);
  return async (params, { signal }) => {
    const path = params.path === undefined ? '/' : params.path;
    if (typeof path !== 'string' || !path.startsWith('/') || path.split('/').includes('..') || /[\u0000-\u001f\u007f]/.test(path)) {
      throw new CapabilityError('invalid_params', 'path must be an absolute path without ".." segments or control characters', false);
    }
    throwIfAborted(signal);

    let own: StatfsResult | undefined;
    try {
      // The path asked about is bounded like every mount: a hung one fails the reading, in time.
      own = await withTimeout(statfs(path), mountTimeoutMs, signal);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new CapabilityError('path_not_found', `${path} does not exist`, true);
      if (code === 'EACCES' || code === 'EPERM') throw new CapabilityError('permission_denied', `${path} cannot be examined (${code})`, true);
      throw new CapabilityError('reading_failed', `statfs of ${path} failed (${code ?? 'unknown error'})`, true);
    }
    throwIfAborted(signal);
    if (own === undefined) throw new CapabilityError('timeout', `statfs of ${path} did not answer within ${mountTimeoutMs} ms (a hung network mount?)`, true);

    const mounts = parseMounts(await readProcFile(procRoot, 'self', 'mounts'))
      .filter((m) => isRealFilesystem(m.type))
      .slice(0, MAX_FILESYSTEMS);
    const filesystems: FilesystemUsage[] = [];
    const readings = await Promise.all(
      mounts.map((m) =>
        withTimeout(
          statfs(m.mount).catch(() => undefined),
          mountTimeoutMs,
          signal,
        ),
      ),
    );
    throwIfAborted(signal);
    mounts.forEach((m, i) => {
      const stats = readings[i];
      if (stats === undefined) return;
      const usage = usageOf(stats);
      if (usage.total_bytes === 0) return; // another pseudo file system
      filesystems.push({ mount: m.mount, type: m.type, ...usage });
    });

    const usage = usageOf(own);
    const observation: DiskUsage = {
      filesystems,
      path,
      used_percent: usage.used_percent,
      available_bytes: usage.available_bytes,
      total_bytes: usage.total_bytes,
    };
    const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
    return {
      observation,
      summary: `${path}: ${usage.used_percent}% used, ${gib(usage.available_bytes)} GiB available; ${filesystems.length} file systems read`,
    };
  };
}

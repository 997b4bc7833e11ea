import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_CAPABILITIES } from '../../src/capabilities/catalogue/index.ts';
import { CapabilityError } from '../../src/capabilities/implementation.ts';
import { builtinImplementations } from '../../src/capabilities/builtin-implementations.ts';
import { hostDiskUsageImplementation, parseMounts } from '../../src/capabilities/host/host-disk-usage.ts';
import type { StatfsResult } from '../../src/capabilities/host/host-disk-usage.ts';
import { memoryStatus, parseMeminfo } from '../../src/capabilities/host/host-memory-status.ts';
import { parseStat, readProcesses } from '../../src/capabilities/host/host-process-list.ts';
import { commandResult, fakeRunner } from '../../src/capabilities/host/runner.ts';

const context = () => ({ signal: new AbortController().signal });
const noRunner = fakeRunner(() => commandResult(''));

function observesOf(name: string): string[] {
  return [...(BUILTIN_CAPABILITIES.find((d) => d.name === name)?.observes ?? [])].sort();
}

/** A stat line the way the kernel writes it: pid (comm) state ppid … utime stime … */
function statLine(pid: number, comm: string, state: string, ppid: number, utime: number, stime: number): string {
  const fields = [state, ppid, pid, pid, 0, -1, 4194560, 100, 0, 0, 0, utime, stime, 0, 0, 20, 0, 1, 0, 1000, 10_000_000, 500];
  return `${pid} (${comm}) ${fields.join(' ')} 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0\n`;
}

function statusText(comm: string, uid: number, rssKb: number | null): string {
  // The kernel escapes the name in status; nothing here depends on it.
  const name = comm.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  const lines = [`Name:\t${name}`, 'Umask:\t0022', 'State:\tS (sleeping)', `Uid:\t${uid}\t${uid}\t${uid}\t${uid}`, `Gid:\t${uid}\t${uid}\t${uid}\t${uid}`];
  if (rssKb !== null) lines.push(`VmRSS:\t   ${rssKb} kB`);
  lines.push('Threads:\t1');
  return `${lines.join('\n')}\n`;
}

describe('/proc parsing on a fixture tree', () => {
  let root: string;
  const addProcess = (pid: number, comm: string, opts: { state?: string; ppid?: number; utime?: number; stime?: number; uid?: number; rssKb?: number | null } = {}) => {
    mkdirSync(join(root, String(pid)), { recursive: true });
    writeFileSync(join(root, String(pid), 'stat'), statLine(pid, comm, opts.state ?? 'S', opts.ppid ?? 1, opts.utime ?? 0, opts.stime ?? 0));
    writeFileSync(join(root, String(pid), 'status'), statusText(comm, opts.uid ?? 0, opts.rssKb === undefined ? 100 : opts.rssKb));
    // Present so that a test would notice if they were ever read (they hold secrets).
    writeFileSync(join(root, String(pid), 'cmdline'), 'secret-cmdline\0--password=hunter2\0');
    writeFileSync(join(root, String(pid), 'environ'), 'AWS_SECRET_ACCESS_KEY=leak\0');
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'praxis-proc-'));
    addProcess(1, 'systemd', { ppid: 0, utime: 500, stime: 250, rssKb: 12_000 });
    addProcess(42, 'a) (b', { utime: 10_000, stime: 5_000, uid: 1000, rssKb: 2_000 });
    addProcess(43, 'with space', { state: 'R', utime: 20, stime: 10, uid: 1000, rssKb: 80_000 });
    addProcess(44, 'new\nline', { state: 'Z', utime: 1, stime: 1, uid: 33, rssKb: null });
    addProcess(45, ')(', { utime: 0, stime: 0, uid: 0, rssKb: null });
    addProcess(2, 'kworker/0:1', { state: 'I', ppid: 2, rssKb: null });
    // 46: vanished between listing and reading (the directory is there, its files are not).
    mkdirSync(join(root, '46'));
    // 47: vanished between the two reads (stat there, status gone).
    mkdirSync(join(root, '47'));
    writeFileSync(join(root, '47', 'stat'), statLine(47, 'half', 'S', 1, 1, 1));
    // 48: garbage that is not a stat line.
    mkdirSync(join(root, '48'));
    writeFileSync(join(root, '48', 'stat'), 'not a stat line');
    writeFileSync(join(root, '48', 'status'), '');
    // Non-process entries.
    mkdirSync(join(root, 'self'));
    mkdirSync(join(root, 'net'));
    writeFileSync(join(root, 'uptime'), '100.00 200.00\n');
    writeFileSync(
      join(root, 'meminfo'),
      'MemTotal:       16000000 kB\nMemFree:         2000000 kB\nMemAvailable:    4000000 kB\nBuffers:          100000 kB\nCached:          1000000 kB\nSwapCached:            0 kB\nSwapTotal:       2000000 kB\nSwapFree:        1500000 kB\nHugePages_Total:       0\n',
    );
    writeFileSync(
      join(root, 'self', 'mounts'),
      [
        'proc /proc proc rw,relatime 0 0',
        'sysfs /sys sysfs rw 0 0',
        '/dev/vda1 / ext4 rw,relatime 0 0',
        'tmpfs /run tmpfs rw,nosuid 0 0',
        'cgroup2 /sys/fs/cgroup cgroup2 rw 0 0',
        '/dev/loop3 /snap/core/1 squashfs ro 0 0',
        '/dev/vdb1 /mnt/my\\040disk xfs rw 0 0',
        '/dev/vdc1 /srv ext4 rw 0 0',
        '/dev/vdd1 /srv ext4 rw 0 0',
        'server:/export /mnt/hung nfs4 rw 0 0',
        '/dev/vde1 /mnt/denied ext4 rw 0 0',
        '',
      ].join('\n'),
    );
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('takes the name between the first "(" and the last ")"', () => {
    assert.deepEqual(parseStat(statLine(42, 'a) (b', 'S', 1, 3, 4)), { name: 'a) (b', state: 'S', ppid: 1, cpuTicks: 7 });
    assert.equal(parseStat(statLine(7, 'x) R 1 2 (y', 'D', 9, 1, 1))?.name, 'x) R 1 2 (y');
    assert.equal(parseStat(statLine(7, 'new\nline', 'S', 9, 1, 1))?.name, 'new\nline');
    assert.equal(parseStat(statLine(7, '', 'S', 9, 1, 1))?.name, '');
    assert.equal(parseStat('12 (no close S 1 2'), null);
    assert.equal(parseStat('12 (short) S 1'), null);
  });

  it('reads every live process, skipping vanished and garbled ones', async () => {
    const all = await readProcesses(root);
    assert.deepEqual(
      all.map((p) => p.pid).sort((a, b) => a - b),
      [1, 2, 42, 43, 44, 45],
    );
    const byPid = new Map(all.map((p) => [p.pid, p]));
    assert.deepEqual(byPid.get(42), { pid: 42, name: 'a) (b', state: 'S', ppid: 1, user: 1000, rss_bytes: 2_048_000, cpu_seconds: 150 });
    assert.equal(byPid.get(43)?.name, 'with space');
    assert.equal(byPid.get(44)?.name, 'new\nline');
    assert.equal(byPid.get(44)?.rss_bytes, 0);
    assert.equal(byPid.get(45)?.name, ')(');
  });

  it('host.process.list sorts, limits, counts, and never reads command lines', async () => {
    const impl = builtinImplementations({ runner: noRunner, procRoot: root });
    const byCpu = await impl['host.process.list']!({ limit: 2 }, context());
    assert.deepEqual(Object.keys(byCpu.observation).sort(), observesOf('host.process.list'));
    assert.equal(byCpu.observation.count, 6);
    assert.deepEqual(
      (byCpu.observation.processes as { pid: number }[]).map((p) => p.pid),
      [42, 1],
    );
    const byMemory = await impl['host.process.list']!({ sort: 'memory', limit: 3 }, context());
    assert.deepEqual(
      (byMemory.observation.processes as { pid: number }[]).map((p) => p.pid),
      [43, 1, 42],
    );
    assert.doesNotMatch(JSON.stringify([byCpu, byMemory]), /secret-cmdline|hunter2|AWS_SECRET|leak/);
  });

  it('host.memory.status reads meminfo in bytes', async () => {
    const impl = builtinImplementations({ runner: noRunner, procRoot: root });
    const { observation } = await impl['host.memory.status']!({}, context());
    assert.deepEqual(observation, {
      total_bytes: 16_000_000 * 1024,
      available_bytes: 4_000_000 * 1024,
      used_percent: 75,
      swap_total_bytes: 2_000_000 * 1024,
      swap_used_bytes: 500_000 * 1024,
    });
    assert.deepEqual(Object.keys(observation).sort(), observesOf('host.memory.status'));
  });

  it('falls back to free plus caches on kernels without MemAvailable', () => {
    const status = memoryStatus(parseMeminfo('MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n'));
    assert.equal(status.available_bytes, 400 * 1024);
    assert.equal(status.used_percent, 60);
    assert.equal(status.swap_total_bytes, 0);
    assert.throws(
      () => memoryStatus(parseMeminfo('garbage')),
      (e: unknown) => e instanceof CapabilityError && e.code === 'reading_failed',
    );
  });

  it('parses mounts, unescaping names and keeping the last mount of a point', () => {
    const mounts = parseMounts('a /x ext4 rw 0 0\nb /mnt/a\\040b\\012c xfs rw 0 0\nc /x btrfs rw 0 0\n');
    assert.deepEqual(mounts, [
      { mount: '/mnt/a b\nc', type: 'xfs' },
      { mount: '/x', type: 'btrfs' },
    ]);
  });

  it('host.disk.usage reports the path and the real file systems', async () => {
    const GiB = 1024 ** 3;
    const fixture: Record<string, StatfsResult> = {
      '/': { bsize: 4096, blocks: (100 * GiB) / 4096, bfree: (40 * GiB) / 4096, bavail: (35 * GiB) / 4096 },
      '/run': { bsize: 4096n, blocks: 1000n, bfree: 900n, bavail: 900n },
      '/mnt/my disk': { bsize: 4096, blocks: 1000, bfree: 0, bavail: 0 },
      '/srv': { bsize: 1024, blocks: 0, bfree: 0, bavail: 0 },
      '/var/lib/data': { bsize: 4096, blocks: 2000, bfree: 1000, bavail: 1000 },
    };
    const statfs = async (path: string): Promise<StatfsResult> => {
      if (path === '/mnt/hung') return new Promise(() => {});
      if (path === '/mnt/denied') throw Object.assign(new Error('denied'), { code: 'EACCES' });
      if (path === '/missing') throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      const stats = fixture[path];
      if (!stats) throw new Error(`unexpected statfs of ${path}`);
      return stats;
    };
    const impl = hostDiskUsageImplementation({ procRoot: root, statfs, mountTimeoutMs: 50 });

    const whole = await impl({}, context());
    assert.deepEqual(Object.keys(whole.observation).sort(), observesOf('host.disk.usage'));
    assert.equal(whole.observation.path, '/');
    assert.equal(whole.observation.total_bytes, 100 * GiB);
    assert.equal(whole.observation.available_bytes, 35 * GiB);
    assert.equal(whole.observation.used_percent, 63.2); // 60 used of 95 usable, like df
    assert.deepEqual(whole.observation.filesystems, [
      { mount: '/', type: 'ext4', total_bytes: 100 * GiB, used_bytes: 60 * GiB, available_bytes: 35 * GiB, used_percent: 63.2 },
      { mount: '/run', type: 'tmpfs', total_bytes: 4_096_000, used_bytes: 409_600, available_bytes: 3_686_400, used_percent: 10 },
      { mount: '/mnt/my disk', type: 'xfs', total_bytes: 4_096_000, used_bytes: 4_096_000, available_bytes: 0, used_percent: 100 },
    ]);

    const one = await impl({ path: '/var/lib/data' }, context());
    assert.equal(one.observation.path, '/var/lib/data');
    assert.equal(one.observation.used_percent, 50);

    await assert.rejects(impl({ path: '/missing' }, context()), (e: unknown) => e instanceof CapabilityError && e.code === 'path_not_found');
    await assert.rejects(impl({ path: '/a/../etc' }, context()), (e: unknown) => e instanceof CapabilityError && e.code === 'invalid_params');

    // The path asked about on a hung mount: a timeout in time, and an abort at once.
    await assert.rejects(impl({ path: '/mnt/hung' }, context()), (e: unknown) => e instanceof CapabilityError && e.code === 'timeout' && /did not answer within 50 ms/.test(e.message));
    const abort = new AbortController();
    const stopped = impl({ path: '/mnt/hung' }, { ...context(), signal: abort.signal });
    abort.abort();
    await assert.rejects(stopped, (e: unknown) => e instanceof CapabilityError && e.code === 'aborted');
  });

  it('never asks a hung mount again while its first statfs is unanswered (each holds a pool thread)', async () => {
    const asked = new Map<string, number>();
    const statfs = async (path: string): Promise<StatfsResult> => {
      asked.set(path, (asked.get(path) ?? 0) + 1);
      if (path === '/mnt/hung') return new Promise(() => {});
      return { bsize: 4096, blocks: 1000, bfree: 500, bavail: 500 };
    };
    const impl = hostDiskUsageImplementation({ procRoot: root, statfs, mountTimeoutMs: 50 });
    for (let i = 0; i < 3; i++) {
      const reading = await impl({}, context());
      assert.equal(
        (reading.observation.filesystems as { mount: string }[]).some((f) => f.mount === '/mnt/hung'),
        false,
      );
      await assert.rejects(impl({ path: '/mnt/hung' }, context()), (e: unknown) => e instanceof CapabilityError && e.code === 'timeout');
    }
    assert.equal(asked.get('/mnt/hung'), 1);
    assert.equal(asked.get('/'), 6, 'a mount that answers is asked every time (as the path and as a mount)');
    // Other spellings of the hung place, and places below it, wait on the same call.
    for (const path of ['/mnt/hung/', '/mnt//hung', '/mnt/hung/.', '/mnt/hung/deeper/still']) {
      await assert.rejects(impl({ path }, context()), (e: unknown) => e instanceof CapabilityError && e.code === 'timeout', path);
    }
    assert.deepEqual(
      [...asked.keys()].filter((p) => p.startsWith('/mnt/hung')),
      ['/mnt/hung'],
    );
  });
});

describe('readings of the real /proc', () => {
  const impl = builtinImplementations({ runner: noRunner });

  it('memory figures are sane', async () => {
    const { observation } = await impl['host.memory.status']!({}, context());
    const m = observation as Record<string, number>;
    assert.ok(m.total_bytes! > 64 * 1024 * 1024);
    assert.ok(m.available_bytes! >= 0 && m.available_bytes! <= m.total_bytes!);
    assert.ok(m.used_percent! >= 0 && m.used_percent! <= 100);
    assert.ok(m.swap_used_bytes! >= 0 && m.swap_used_bytes! <= m.swap_total_bytes!);
  });

  it('this test process is listed with its parent and user', async () => {
    const all = await readProcesses('/proc');
    const me = all.find((p) => p.pid === process.pid);
    assert.ok(me, 'own process not found');
    assert.equal(me.ppid, process.ppid);
    assert.equal(me.user, process.getuid?.());
    assert.ok(me.rss_bytes > 0);
    assert.ok(me.cpu_seconds >= 0);
    assert.match(me.state, /^[A-Za-z]$/);
  });

  it('host.process.list returns at most the limit, in order', async () => {
    const { observation } = await impl['host.process.list']!({ sort: 'memory', limit: 5 }, context());
    const processes = observation.processes as { rss_bytes: number }[];
    assert.ok(processes.length >= 1 && processes.length <= 5);
    assert.ok((observation.count as number) >= processes.length);
    for (let i = 1; i < processes.length; i++) assert.ok(processes[i - 1]!.rss_bytes >= processes[i]!.rss_bytes);
  });

  it('disk usage of / is sane', async () => {
    const { observation } = await impl['host.disk.usage']!({}, context());
    assert.ok((observation.total_bytes as number) > 0);
    assert.ok((observation.used_percent as number) >= 0 && (observation.used_percent as number) <= 100);
    const filesystems = observation.filesystems as { type: string; mount: string }[];
    assert.ok(filesystems.length >= 1);
    for (const fs of filesystems) assert.ok(!['proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts'].includes(fs.type), fs.mount);
  });
});

// host.disk.usage, host.memory.status and host.process.list read inside the container: its own
// PID namespace's /proc, its own mounts, and the kernel's memory figures, cross-checked against
// procps and coreutils in the same root.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { capability, context, failsWith, settle } from './support/container.ts';

const run = (program: string, ...args: string[]) => execFileSync(program, args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', LANG: 'C' } });

interface Proc {
  pid: number;
  name: string;
  state: string;
  ppid: number;
  user: number | string;
  rss_bytes: number;
  cpu_seconds: number;
}

describe('host readings inside the container', () => {
  it('host.process.list reads this PID namespace: systemd is PID 1, the units are its children, ps agrees', async () => {
    await settle('praxis-healthy.service', ['active']);
    const { observation } = await capability('host.process.list')({ limit: 100, sort: 'memory' }, context());
    const processes = observation.processes as unknown as Proc[];
    const numeric = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
    assert.ok(Math.abs((observation.count as number) - numeric) <= 3, `${observation.count} read, ${numeric} in /proc`);
    assert.ok((observation.count as number) < 60, "only the container's processes");
    const byPid = new Map(processes.map((p) => [p.pid, p]));
    const init = byPid.get(1);
    assert.ok(init);
    assert.deepEqual([init.name, init.ppid], ['systemd', 0]);
    assert.ok(init.rss_bytes > 1024 * 1024);
    const names = new Set(processes.map((p) => p.name));
    for (const expected of ['systemd-journal', 'healthy', 'flaky', 'node']) {
      if (expected === 'flaky') continue; // it may be between failures
      assert.ok(names.has(expected), `${expected} in ${[...names].join(', ')}`);
    }
    const healthy = processes.find((p) => p.name === 'healthy')!;
    assert.equal(healthy.ppid, 1);
    assert.equal(healthy.user, 0);
    const me = byPid.get(process.pid);
    assert.ok(me, 'this test process is in the list');
    assert.equal(me.name, 'node');
    // Sorted by memory, descending.
    const rss = processes.map((p) => p.rss_bytes);
    assert.deepEqual(
      rss,
      [...rss].sort((a, b) => b - a),
    );
    // ps (procps) sees the same names and parents for the long-lived processes.
    const ps = new Map(
      run('/usr/bin/ps', '-e', '-o', 'pid=,ppid=,comm=')
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .map(([pid, ppid, comm]) => [Number(pid), { ppid: Number(ppid), comm }]),
    );
    for (const p of processes.filter((x) => ['systemd', 'systemd-journal', 'healthy', 'dbus-daemon'].includes(x.name))) {
      assert.deepEqual({ pid: p.pid, ppid: p.ppid, name: p.name }, { pid: p.pid, ppid: ps.get(p.pid)?.ppid, name: ps.get(p.pid)?.comm });
    }
    // The node process has used some CPU; every figure is a finite, non-negative number.
    for (const p of processes) {
      assert.ok(Number.isFinite(p.cpu_seconds) && p.cpu_seconds >= 0);
      assert.ok(Number.isSafeInteger(p.rss_bytes) && p.rss_bytes >= 0);
    }
    assert.ok(me.cpu_seconds > 0);
  });

  it('host.process.list by cpu: the busiest first, cut to the limit, count still all of them', async () => {
    const { observation } = await capability('host.process.list')({ limit: 3 }, context());
    const processes = observation.processes as unknown as Proc[];
    assert.equal(processes.length, 3);
    assert.ok((observation.count as number) > 3);
    const cpu = processes.map((p) => p.cpu_seconds);
    assert.deepEqual(
      cpu,
      [...cpu].sort((a, b) => b - a),
    );
  });

  it('host.memory.status matches free(1) on the same /proc/meminfo', async () => {
    const { observation } = await capability('host.memory.status')({}, context());
    const mem = run('/usr/bin/free', '-b').split('\n');
    const [, total, , , , , available] = mem[1]!.trim().split(/\s+/).map(Number);
    const [, swapTotal, swapUsed] = mem[2]!.trim().split(/\s+/).map(Number);
    assert.equal(observation.total_bytes, total);
    assert.ok(Math.abs((observation.available_bytes as number) - available!) < 64 * 1024 * 1024, 'available within 64 MiB');
    assert.equal(observation.swap_total_bytes, swapTotal);
    assert.ok(Math.abs((observation.swap_used_bytes as number) - swapUsed!) < 64 * 1024 * 1024);
    const used = observation.used_percent as number;
    assert.ok(used > 0 && used < 100);
  });

  it('host.disk.usage: the overlay root as df sees it, the tmpfs mounts systemd made, no pseudo file systems', async () => {
    const { observation } = await capability('host.disk.usage')({}, context());
    const [size, used, avail] = run('/usr/bin/df', '-B1', '--output=size,used,avail', '/').trim().split('\n')[1]!.trim().split(/\s+/).map(Number);
    assert.equal(observation.total_bytes, size);
    assert.ok(Math.abs((observation.available_bytes as number) - avail!) < 256 * 1024 * 1024, 'available within 256 MiB of df');
    assert.ok(Math.abs((observation.used_percent as number) - (used! / (used! + avail!)) * 100) < 1);
    const filesystems = observation.filesystems as Array<{ mount: string; type: string; total_bytes: number }>;
    const byMount = new Map(filesystems.map((f) => [f.mount, f]));
    assert.equal(byMount.get('/')?.type, 'overlay');
    for (const tmpfs of ['/run', '/dev/shm']) assert.equal(byMount.get(tmpfs)?.type, 'tmpfs', tmpfs);
    for (const f of filesystems) assert.ok(!['proc', 'sysfs', 'cgroup2', 'devpts', 'mqueue'].includes(f.type), `${f.mount} (${f.type})`);
    assert.ok(!byMount.has('/proc') && !byMount.has('/sys/fs/cgroup'));
    // Mounts outside this root (the host's own) are not visible here.
    for (const f of filesystems) assert.ok(!f.mount.includes('.cache/host-root'), f.mount);
  });

  it('host.disk.usage of another path, and of one that does not exist', async () => {
    const { observation } = await capability('host.disk.usage')({ path: '/praxis' }, context());
    const size = Number(run('/usr/bin/df', '-B1', '--output=size', '/praxis').trim().split('\n')[1]);
    assert.equal(observation.total_bytes, size);
    await assert.rejects(capability('host.disk.usage')({ path: '/no/such/path' }, context()), failsWith('path_not_found', true));
  });
});

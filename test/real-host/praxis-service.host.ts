// Praxis as a service on real systemd: packaging/praxis.service, unchanged, runs `praxis serve`
// as the unprivileged praxis user with its whole sandbox, and its executor acts on real units
// with the real runner, through polkit. The story `praxis demo` plays on a simulated host runs
// here on a real one, driven through the daemon's HTTP API as an operator's script would: the
// restart of the failing atlas-worker.service is approved; the unit fails again, so the verify
// step refutes the expectation; the plan is replanned (revision 2) to diagnose and escalate; the
// journal access it asks for is granted; the journal is read and masked (the database password
// and the customer's address the unit logs appear nowhere Praxis keeps or answers); the
// escalation note is left. A restart of a unit the polkit rule does not name is refused.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { property, settle, systemctl, waitFor } from './support/container.ts';
import { DATABASE, api, installPraxis, issueToken, ok, sh, startPraxis } from './support/praxis-service.ts';

const UNIT = 'atlas-worker.service';
/** What atlas-worker's start-up check logs that must never come out unmasked. */
const SECRETS = ['atlas-s3cret-7f3a', 'bob@example.com', '198.51.100.23', '10.0.4.12'];

let author = '';
let operator = '';

/** The plan's detail, with every step's linked records. */
const planDetail = (id: string) => ok(author, 'GET', `/plans/${id}`);

/** The steps of a plan detail by key. */
const stepsByKey = (detail: any): Record<string, any> => Object.fromEntries(detail.steps.map((s: any) => [s.key, s]));

describe('Praxis as praxis.service: unprivileged, sandboxed, acting through polkit', () => {
  before(async () => {
    installPraxis();
    await startPraxis();
    author = issueToken('story-author', 'admin');
    operator = issueToken('story-operator', 'operator');
  });

  after(() => {
    systemctl('stop', 'praxis.service');
  });

  it('systemd-analyze verify passes on the unit, and its exposure is 2.0 or lower', () => {
    assert.equal(sh('/usr/bin/systemd-analyze', 'verify', '/etc/systemd/system/praxis.service').trim(), '');
    const out = sh('/usr/bin/systemd-analyze', 'security', '--no-pager', 'praxis.service');
    const level = /Overall exposure level for praxis\.service: (\d+\.\d+)/.exec(out);
    assert.ok(level, out.slice(-400));
    assert.ok(Number(level[1]) <= 2.0, `exposure ${level[1]}`);
  });

  it('the daemon runs as the praxis user, in the journal group, with no capabilities, no new privileges and its sandbox in effect', () => {
    const pid = Number(property('praxis.service', 'MainPID'));
    assert.ok(pid > 0);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim() ?? '';
    const uid = sh('/usr/bin/id', '-u', 'praxis').trim();
    assert.deepEqual(field('Uid').split(/\s+/), [uid, uid, uid, uid]);
    const journalGid = sh('/usr/bin/getent', 'group', 'systemd-journal').split(':')[2]!;
    assert.ok(field('Groups').split(/\s+/).includes(journalGid), field('Groups'));
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) assert.equal(field(set), '0000000000000000', set);
    assert.equal(field('NoNewPrivs'), '1');
    assert.equal(field('Seccomp'), '2', 'the system call filter is on');
    // ProtectSystem=strict: the whole tree is read-only to it, its state directory is not.
    const mountsOf = (process: number | string) => readFileSync(`/proc/${process}/mountinfo`, 'utf8').split('\n');
    const mounts = mountsOf(pid);
    // The last mount on a point is the one seen there.
    const mountAt = (lines: string[], point: string) =>
      lines
        .filter((l) => l.split(' ')[4] === point)
        .at(-1)
        ?.split(' ') ?? [];
    assert.match(mountAt(mounts, '/')[5] ?? '', /^ro\b/, mounts.join('\n'));
    assert.match(mountAt(mounts, '/var/lib/praxis')[5] ?? '', /^rw\b/, mounts.join('\n'));
    // PrivateTmp and PrivateDevices: what it sees there is not what the system sees (another
    // file system, or another directory of one: device and root of the mount differ).
    const seen = (lines: string[], point: string) => mountAt(lines, point).slice(2, 4).join(' ');
    const system = mountsOf(1);
    for (const point of ['/tmp', '/var/tmp', '/dev']) {
      assert.notEqual(seen(mounts, point), '', `nothing is mounted over ${point}`);
      assert.notEqual(seen(mounts, point), seen(system, point), `${point} is the system's`);
    }
    // ProtectHome=read-only: the homes are there (host.disk.usage reads their file system, next
    // test), read-only: the mount they are on, the last one whose point holds them.
    const holding = (lines: string[], path: string) =>
      lines
        .map((l) => l.split(' '))
        .filter((f) => f[4] !== undefined && (path === f[4] || path.startsWith(f[4] === '/' ? '/' : `${f[4]}/`)))
        .sort((a, b) => a[4]!.length - b[4]!.length)
        .at(-1) ?? [];
    for (const point of ['/home', '/root']) assert.match(holding(mounts, point)[5] ?? '', /^ro\b/, `${point}: ${holding(mounts, point).join(' ')}`);
    // StateDirectory and UMask: its state (the database, the daemon secret) is the praxis user's alone.
    const state = statSync('/var/lib/praxis');
    assert.deepEqual([state.uid, state.mode & 0o777], [Number(uid), 0o750]);
    const files = readdirSync('/var/lib/praxis');
    assert.ok(files.includes('praxis.db'), files.join(' '));
    for (const file of files) {
      const { uid: owner, mode } = statSync(`/var/lib/praxis/${file}`);
      assert.deepEqual([file, owner, mode & 0o077], [file, Number(uid), 0], `${file} is the praxis user's alone`);
    }
    // PrivateIPC and ProtectHostname: namespaces of its own.
    for (const ns of ['ipc', 'uts', 'mnt']) assert.notEqual(readlinkSync(`/proc/${pid}/ns/${ns}`), readlinkSync(`/proc/1/ns/${ns}`), `${ns} namespace`);
  });

  it("host.disk.usage of /home, read by the sandboxed daemon, is the file system's as the system sees it", async () => {
    await ok(author, 'POST', '/minds', { name: 'disks', host: 'praxis-host' });
    const proposed = await ok(author, 'POST', '/minds/disks/intentions', { means: { capability: 'host.disk.usage', params: { path: '/home' } } });
    assert.equal(proposed.planning.status, 'planned', JSON.stringify(proposed.planning));
    const read = await waitFor(
      'the reading of /home',
      async () => {
        const step = stepsByKey(await planDetail(proposed.planning.plan_id)).P1;
        return step?.status === 'completed' ? step : undefined;
      },
      30_000,
    );
    const size = Number(sh('/usr/bin/df', '-B1', '--output=size', '/home').trim().split('\n')[1]);
    assert.equal(read.observation?.total_bytes, size, JSON.stringify(read.observation));
  });

  it('a restart of a unit the polkit rule does not name is refused (permission_denied), and that unit keeps running', async () => {
    await settle('praxis-healthy.service', ['active']);
    const healthyPid = property('praxis-healthy.service', 'MainPID');
    await ok(author, 'POST', '/minds', { name: 'estate', host: 'praxis-host' });
    await ok(author, 'PUT', '/minds/estate/policy', { capability: 'service.restart', target_pattern: 'praxis-healthy.service', decision: 'allow' });
    const proposed = await ok(author, 'POST', '/minds/estate/intentions', { means: { capability: 'service.restart', params: { unit: 'praxis-healthy.service' } } });
    assert.equal(proposed.planning.status, 'planned', JSON.stringify(proposed.planning));
    const restart = await waitFor(
      'the refused restart to be recorded',
      async () => {
        const step = stepsByKey(await planDetail(proposed.planning.plan_id)).P1;
        return step.status === 'failed' ? step : undefined;
      },
      30_000,
    );
    assert.equal(restart.execution.status, 'failed', JSON.stringify(restart.execution));
    assert.match(restart.error, /permission_denied/);
    assert.match(restart.error, /Failed to restart praxis-healthy\.service: (Access denied|Interactive authentication required)/);
    assert.equal(property('praxis-healthy.service', 'MainPID'), healthyPid, 'the unit was not restarted');
    await ok(operator, 'POST', `/intentions/${proposed.intention.id}/cancel`, { reason: 'the refusal is what this test wanted to see' });
  });

  it('the story on real units: approved restart, refuted, replanned to diagnose and escalate, journal granted and masked, note left', { timeout: 180_000 }, async () => {
    await settle(UNIT, ['failed']);
    const invocationBefore = property(UNIT, 'InvocationID');

    await ok(author, 'POST', '/minds', { name: 'atlas', host: 'praxis-host' });
    // As in the demo: restarting the unit asks an operator; host readings beyond the unit are denied.
    await ok(author, 'PUT', '/minds/atlas/policy', { capability: 'service.restart', target_pattern: UNIT, decision: 'ask' });
    await ok(author, 'PUT', '/minds/atlas/policy', { capability: 'host.*', target_pattern: '*', decision: 'deny' });
    const proposed = await ok(author, 'POST', '/minds/atlas/intentions', {
      objective: `Restart ${UNIT} and confirm it is healthy`,
      means: { capability: 'service.restart', params: { unit: UNIT } },
    });
    assert.equal(proposed.planning.status, 'planned', JSON.stringify(proposed.planning));
    const intentionId: string = proposed.intention.id;
    const first: string = proposed.planning.plan_id;

    // The operator approves the restart; the author may not (four eyes).
    const approval = await waitFor('the restart to ask for approval', async () => {
      const { groups } = await ok(operator, 'GET', '/approvals?mind=atlas');
      return groups.flatMap((g: any) => g.items).find((a: any) => a.capability === 'service.restart' && a.target === UNIT);
    });
    assert.equal((await api(author, 'POST', `/approvals/${approval.id}/approve`, {})).status, 409, 'its author cannot approve it');
    await ok(operator, 'POST', `/approvals/${approval.id}/approve`, { note: 'go ahead' });

    // The service's executor really restarted the unit, through polkit (a new invocation), and it failed again.
    await waitFor('atlas-worker to be started again', () => {
      const now = property(UNIT, 'InvocationID');
      return now !== '' && now !== invocationBefore ? now : undefined;
    });
    await settle(UNIT, ['failed']);

    // The verify step waits out the expectation's window (60 s), then the plan is replanned.
    const request = await waitFor(
      'the diagnosis to ask for journal access',
      async () => {
        const { groups } = await ok(operator, 'GET', '/capability-requests?mind=atlas');
        return groups.flatMap((g: any) => g.items).find((r: any) => r.capability === 'logs.query');
      },
      120_000,
    );
    assert.equal(request.targetPattern, UNIT);
    await ok(operator, 'POST', `/capability-requests/${request.id}/grant`, {});

    const note = await waitFor(
      'the escalation note',
      async () => {
        const { items } = await ok(operator, 'GET', `/intentions/${intentionId}/timeline?limit=200`);
        return items.find((e: any) => e.type === 'operator_note');
      },
      60_000,
    );

    // The revisions: the direct restart superseded, the diagnosis completed.
    const plans = (await ok(operator, 'GET', `/plans?intention=${intentionId}`)).items;
    assert.deepEqual(
      plans.map((p: any) => [p.revision, p.strategy, p.status]),
      [
        [2, 'diagnose_then_escalate', 'completed'],
        [1, 'direct', 'superseded'],
      ],
    );
    const second: string = plans[0].id;

    // Revision 1: the restart was requested (never called healthy), then refuted by what systemd said.
    const r1 = stepsByKey(await planDetail(first));
    assert.equal(r1.P1.status, 'completed');
    assert.deepEqual(r1.P1.observation, { unit: UNIT, requested: true, message: 'restart requested (health not yet verified)' });
    assert.equal(r1.P1.approval.status, 'executed');
    assert.equal(r1.V1.status, 'failed');
    assert.match(r1.V1.error, /expectation failed: atlas-worker\.service is active \(observed "failed"\)/);
    assert.equal(r1.P1.prediction.status, 'refuted');

    // Revision 2: the unit's state read, the journal read after the grant, masked, and the note.
    const detail = await planDetail(second);
    const r2 = stepsByKey(detail);
    assert.equal(r2.U1.status, 'completed');
    assert.equal(r2.U1.observation.active_state, 'failed');
    const logStep = detail.steps.find((s: any) => s.capability === 'logs.query');
    assert.ok(logStep, 'the diagnosis read the journal');
    assert.equal(logStep.status, 'completed');
    assert.ok(logStep.execution.grantId, 'the read was made under the grant');
    assert.equal(logStep.execution.result.low_trust, true, 'journal text is delivered as low-trust');
    assert.equal(logStep.observation.masked, true);
    const lines: string[] = logStep.observation.lines;
    assert.ok(
      lines.some((l) => l.endsWith('db connect postgres://[secret]@[ipv4]:5432/atlas slow (2.8 s)')),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.endsWith('fatal: pool exhausted for [email]')),
      lines.join('\n'),
    );
    assert.match(note.data.message, /^Tried service\.restart on atlas-worker\.service \(revision 1\).*observed "failed".*service\.restart is not being repeated/);

    // The events tell the story in order.
    const { items: events } = await ok(operator, 'GET', `/intentions/${intentionId}/timeline?limit=200`);
    const types: string[] = events.map((e: any) => e.type);
    const order = ['approval_approved', 'prediction_error', 'plan_replanned', 'grant_created', 'operator_note'];
    const positions = order.map((t) => types.indexOf(t));
    assert.ok(
      positions.every((p) => p >= 0),
      `events: ${types.join(', ')}`,
    );
    assert.deepEqual(
      [...positions].sort((a, b) => a - b),
      positions,
      `events out of order: ${types.join(', ')}`,
    );

    // The restart was made once and never repeated: the journal Praxis read shows the unit's start
    // at boot and the one restart, nothing more.
    assert.equal(lines.filter((l) => l.endsWith('atlas-worker starting, 8 consumers')).length, 2, lines.join('\n'));

    // Nothing Praxis answers, stores or logs holds the unit's secrets unmasked.
    const answered = [
      JSON.stringify(await planDetail(first)),
      JSON.stringify(detail),
      (await api(operator, 'GET', `/intentions/${intentionId}/timeline?limit=200`)).text,
      (await api(operator, 'GET', '/minds/atlas/timeline?limit=200')).text,
    ].join('\n');
    const stored = readdirSync('/var/lib/praxis')
      .filter((f) => f.startsWith('praxis.db'))
      .map((f) => readFileSync(`/var/lib/praxis/${f}`).toString('latin1'))
      .join('\n');
    const logged = sh('/usr/bin/journalctl', '--no-pager', '-o', 'cat', '-u', 'praxis.service');
    assert.ok(stored.length > 0 && logged.length > 0);
    for (const secret of SECRETS) {
      assert.ok(!answered.includes(secret), `the API answered "${secret}"`);
      assert.ok(!stored.includes(secret), `${DATABASE} holds "${secret}"`);
      assert.ok(!logged.includes(secret), `the daemon logged "${secret}"`);
    }
    // The journal itself still has it: the masking is Praxis's, not an empty read.
    assert.ok(sh('/usr/bin/journalctl', '--no-pager', '-o', 'cat', '-u', UNIT).includes(SECRETS[0]!));
  });
});

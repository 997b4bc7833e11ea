// Races over the authority tables between separate connections: each must have exactly as many
// winners as the rules allow. PostgreSQL contenders are separate Store instances (one pool
// each); SQLite contenders are separate processes, because a second SQLite connection in the
// same process never runs alongside the first.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import type { Clock } from '../../src/core/clock.ts';
import type { StoreConfig } from '../../src/store/config.ts';
import { openStore } from '../../src/store/store.ts';
import { STORE_KINDS, useStore } from '../support/stores.ts';
import { perform, type RaceAction, type RaceOutcome } from './authority/actions.ts';
import { logAccessGrant, logAccessRequest, restartApproval, seedMind } from './authority/fixtures.ts';
import { programArgs } from '../support/programs.ts';

const RACER = new URL('./authority/racer.ts', import.meta.url);
const CONTENDERS = 10;

/** Performs its actions one per round, when told to. */
interface Contender {
  ready: Promise<void>;
  next(): Promise<RaceOutcome>;
  close(): Promise<void>;
}

async function inProcessContender(config: StoreConfig, clock: Clock, actions: RaceAction[]): Promise<Contender> {
  const store = await openStore(config, { clock });
  await store.minds.list(); // a warm connection, so rounds race statements, not connection setups
  let round = 0;
  return {
    ready: Promise.resolve(),
    next: () => perform(store, actions[round++] ?? { op: 'idle' }),
    close: () => store.close(),
  };
}

function processContender(config: StoreConfig, clock: Clock, actions: RaceAction[]): Contender {
  const child = spawn(process.execPath, [...programArgs(RACER), JSON.stringify(config), clock.now().toISOString(), JSON.stringify(actions)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<never>((_, reject) => {
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`racer exited (${code}) with a round unanswered: ${err}`)));
  });
  exited.catch(() => {});
  const pending: ((line: string) => void)[] = [];
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = pending.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const nextLine = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else pending.push(resolve);
      }),
      exited,
    ]);
  return {
    ready: nextLine().then((line) => assert.equal(line, 'ready', `racer said ${line}: ${err}`)),
    async next() {
      child.stdin.write('go\n');
      return JSON.parse(await nextLine()) as RaceOutcome;
    },
    async close() {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('close', resolve));
    },
  };
}

function winners(outcomes: RaceOutcome[], op?: RaceAction['op']): RaceOutcome[] {
  return outcomes.filter((o) => o.won && (op === undefined || o.op === op));
}

for (const kind of STORE_KINDS) {
  describe(`authority races between connections (${kind})`, () => {
    const current = useStore(kind);

    it(`gives each race exactly its allowed winners among ${CONTENDERS} contenders`, async () => {
      const { store, config, clock } = current();
      const mindId = await seedMind(store);
      const approval = await store.approvals.create(restartApproval(mindId, clock));
      const grant = await store.grants.create(logAccessGrant(mindId, clock, { operations: 3 }));
      const requester = await seedMind(store, 'requester');

      // Round 1: half approve, half withdraw the same request. Round 2: everyone uses a grant
      // with 3 operations. Round 3: eight ask for access under a cap of 5 open requests.
      const scripts: RaceAction[][] = Array.from({ length: CONTENDERS }, (_, i) => [
        i % 2 === 0 ? { op: 'approve', approvalId: approval.id, operator: `operator-${i}` } : { op: 'withdraw', approvalId: approval.id },
        { op: 'consume', grantId: grant.id },
        i < 8 ? { op: 'request', input: logAccessRequest(requester), cap: 5 } : { op: 'idle' },
      ]);
      const contenders: Contender[] = [];
      try {
        for (const script of scripts) {
          contenders.push(kind === 'sqlite' ? processContender(config, clock, script) : await inProcessContender(config, clock, script));
        }
        await Promise.all(contenders.map((c) => c.ready));
        const round = () => Promise.all(contenders.map((c) => c.next()));

        const decided = await round();
        assert.equal(winners(decided).length, 1, JSON.stringify(decided));
        const [winner] = winners(decided);
        const after = await store.approvals.get(approval.id);
        assert.equal(after?.status, winner?.op === 'approve' ? 'approved' : 'withdrawn');
        assert.deepEqual(
          after?.decisions.map((d) => d.operator),
          winner?.op === 'approve' ? [winner.detail] : [],
        );

        const used = await round();
        assert.deepEqual(
          winners(used)
            .map((o) => o.detail)
            .sort(),
          [0, 1, 2],
          JSON.stringify(used),
        );
        const spent = await store.grants.get(grant.id);
        assert.equal(spent?.operationsLeft, 0);
        assert.equal(spent?.status, 'exhausted');

        const asked = await round();
        assert.equal(winners(asked, 'request').length, 5, JSON.stringify(asked));
        assert.equal(await store.capabilityRequests.countOpen(requester), 5);
        assert.deepEqual(
          (await store.capabilityRequests.list({ mindId: requester })).map((r) => r.id).sort(),
          winners(asked)
            .map((o) => o.detail)
            .sort(),
        );
      } finally {
        await Promise.all(contenders.map((c) => c.close()));
      }
    });
  });
}

// Amending an action in the approval card, in a real browser against an in-process server: the
// operator edits the parameters, the card then shows the action as raised beside the amendment,
// the amending operator's own approval is refused, a malformed or invalid edit is refused with the
// API's error and changes nothing, and the plan page shows the step's original and amended action.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, makeWorld, step, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe('amending in the approval card (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let planId = '';
  let approvalId = '';
  let token = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', title: 'Write alpha', capability: 'test.write', params: { name: 'alpha', level: 9 } })]));
    planId = plan.id;
    token = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;
    await world.executor().drain();
    const [pending] = await world.store.approvals.list({ mindId: world.mind.id, status: 'pending' });
    assert.ok(pending, 'the write awaits approval');
    approvalId = pending.id;

    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(token, route);

  const card = () => `[data-testid=approval][data-approval-id="${approvalId}"]`;

  it('refuses a malformed and an invalid edit, changing nothing', async () => {
    const page = await signedIn('#/approvals');
    await page.click(`${card()} [data-testid=amend-open]`);
    await page.fill(`${card()} [data-testid=amend-params]`, '{"name": "alpha", level: 2');
    await page.click(`${card()} [data-testid=amend-submit]`);
    assert.match((await (await page.waitForSelector(`${card()} [data-testid=amend-form] [role=alert]`)).textContent()) ?? '', /not JSON/);
    await page.fill(`${card()} [data-testid=amend-params]`, '{"name": "alpha", "level": 99}');
    await page.click(`${card()} [data-testid=amend-submit]`);
    const error = await page.waitForSelector(`${card()} [data-testid=amend-form] [data-testid=api-error][data-status="400"]`);
    assert.match((await error.textContent()) ?? '', /level/);
    const stored = await world!.store.approvals.get(approvalId);
    assert.deepEqual(stored?.params, { name: 'alpha', level: 9 });
    assert.deepEqual(stored?.amendments, []);
  });

  it("amends the action in the card; the card shows it beside the original and the amender's approval is refused", async () => {
    const page = await signedIn('#/approvals');
    await page.click(`${card()} [data-testid=amend-open]`);
    assert.deepEqual(JSON.parse(await page.inputValue(`${card()} [data-testid=amend-params]`)), { name: 'alpha', level: 9 }, 'the form starts from the action');
    await page.fill(`${card()} [data-testid=amend-params]`, '{"name": "alpha", "level": 2}');
    await page.fill(`${card()} [data-testid=amend-reason]`, 'level 9 is too much');
    await page.click(`${card()} [data-testid=amend-submit]`);
    const history = await page.waitForSelector(`${card()} [data-testid=amendments]`);
    const text = (await history.textContent()) ?? '';
    // Stored JSON keeps its keys sorted.
    assert.match(text, /As raised\s*alpha \{"level":9,"name":"alpha"\}/, 'the action as raised');
    assert.match(text, /alice.*changed it to alpha \{"level":2,"name":"alpha"\}: level 9 is too much/s);
    assert.match(text, /May not approve\s*alice/);
    assert.match((await page.textContent(`${card()} [data-testid=exact-action]`)) ?? '', /"level": 2/);
    assert.deepEqual((await world!.store.approvals.get(approvalId))?.params, { name: 'alpha', level: 2 });

    await page.click(`${card()} [data-testid=approve]`);
    const refused = await page.waitForSelector(`${card()} [data-testid=api-error][data-status="409"]`);
    assert.match((await refused.textContent()) ?? '', /self_approval/);
    assert.equal((await world!.store.approvals.get(approvalId))?.status, 'pending');
  });

  it("shows the step's original and amended action on the plan page", async () => {
    const page = await signedIn(`#/plans/${planId}`);
    await page.click('[data-testid=graph-node][data-step-key=W1]');
    const amendment = await page.waitForSelector('[data-testid=step-detail][data-step-key=W1] [data-testid=step-amendment]');
    const text = (await amendment.textContent()) ?? '';
    assert.match(text, /amended by alice/);
    assert.match(text, /level 9 is too much/);
    assert.equal(await page.textContent('[data-testid=original-target]'), 'alpha');
    assert.equal(await page.textContent('[data-testid=amended-target]'), 'alpha');
    assert.match((await page.textContent('[aria-label="Original parameters"]')) ?? '', /9/);
    assert.match((await page.textContent('[aria-label="Amended parameters"]')) ?? '', /2/);
    // The plan's timeline names the amendment with its step, who made it and why.
    const event = await page.waitForSelector('[data-testid=timeline-event][data-type=approval_amended]');
    const said = (await event.textContent()) ?? '';
    assert.match(said, /approval amended: W1/);
    assert.match(said, /alice/);
    assert.match(said, /level 9 is too much/);
  });
});

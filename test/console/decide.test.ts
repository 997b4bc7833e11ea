// Deciding in the approval centre, in a real browser against an in-process server: Enter in a
// capability request's denial note denies the request with that note (it once granted it and
// dropped the note); Enter in an approval's note decides nothing (the note serves Approve and
// Deny alike, so a button decides); and the amend editor opens on the parameters the card shows
// now, after another operator amended the action, and an amendment saved over one made while the
// editor was open is refused (409 changed), nothing changed.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, makeWorld, step, type World } from '../execution/support.ts';
import { openRequest, pendingApproval } from '../server/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe('deciding in the approval centre (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let stepApprovalId = '';
  let alice = '';
  let bob = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    await world.plan(draftOf([step('W1', { kind: 'capability', title: 'Write alpha', capability: 'test.write', params: { name: 'alpha', level: 9 } })]));
    alice = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;
    bob = (await issueToken(world.store, { operator: 'bob', role: 'operator' })).token;
    await world.executor().drain();
    const [pending] = await world.store.approvals.list({ mindId: world.mind.id, status: 'pending' });
    assert.ok(pending, 'the write awaits approval');
    stepApprovalId = pending.id;

    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(alice, route);

  /** Bob amends the step's action through the API, as another operator's console would. */
  async function bobAmends(params: Record<string, unknown>): Promise<void> {
    const response = await session!.app.inject({
      method: 'POST',
      url: `/api/v1/minds/${world!.mind.name}/approvals/${stepApprovalId}/amend`,
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      payload: { params, reason: 'bob narrows it' },
    });
    assert.equal(response.statusCode, 200, response.body);
  }

  it("decides nothing when Enter is pressed in an approval's note, which serves Approve and Deny alike", async () => {
    const approvalId = await pendingApproval(world!, 'beta');
    const page = await signedIn('#/approvals');
    const card = `[data-testid=approval][data-approval-id="${approvalId}"]`;
    const note = page.locator(`${card} #note-${approvalId}`);
    await note.fill('not while the unit flaps');
    await note.press('Enter');
    // Give a submission time to reach the server, then look: nothing was decided.
    await page.waitForTimeout(500);
    const approval = await world!.store.approvals.get(approvalId);
    assert.equal(approval?.status, 'pending');
    assert.deepEqual(approval?.decisions, []);
    // The buttons decide, with the note.
    await page.click(`${card} [data-testid=deny]`);
    await page.waitForSelector(card, { state: 'detached' });
    const denied = await world!.store.approvals.get(approvalId);
    assert.equal(denied?.status, 'denied');
    assert.deepEqual(
      denied?.decisions.map((d) => [d.operator, d.decision, d.note]),
      [['alice', 'deny', 'not while the unit flaps']],
    );
  });

  it('denies a capability request when Enter is pressed in the denial note, with the note, and grants nothing', async () => {
    const requestId = await openRequest(world!);
    const page = await signedIn('#/approvals');
    const card = `[data-testid=capability-request][data-request-id="${requestId}"]`;
    const note = page.locator(card).getByLabel(/Note for a denial/);
    await note.fill('no access to that unit today');
    await note.press('Enter');
    await page.waitForSelector(card, { state: 'detached' });
    const request = await world!.store.capabilityRequests.get(requestId);
    assert.equal(request?.status, 'denied');
    assert.equal(request?.decidedBy, 'alice');
    const [denial] = await world!.store.events.list({ mindId: world!.mind.id, types: ['capability_request_denied'] });
    assert.equal(denial?.data.request_id, requestId);
    assert.equal(denial?.data.note, 'no access to that unit today', 'the denial keeps the note');
    assert.deepEqual(await world!.store.grants.list({ mindId: world!.mind.id }), [], 'no grant exists');
  });

  it('opens the amend editor on the parameters shown now, after another operator amended them', async () => {
    const page = await signedIn('#/approvals');
    const card = `[data-testid=approval][data-approval-id="${stepApprovalId}"]`;
    await page.waitForSelector(`${card} [data-testid=amend-open]`);
    await bobAmends({ name: 'alpha', level: 3 });
    // Alice's card follows through the stream, then she opens the editor.
    await page.waitForFunction((selector) => /"level": 3/.test(document.querySelector(selector)?.textContent ?? ''), `${card} [data-testid=exact-action]`);
    await page.click(`${card} [data-testid=amend-open]`);
    assert.deepEqual(JSON.parse(await page.inputValue(`${card} [data-testid=amend-params]`)), { name: 'alpha', level: 3 }, "the editor starts from Bob's parameters");
  });

  it('refuses an amendment saved over one made while the editor was open, changing nothing', async () => {
    const page = await signedIn('#/approvals');
    const card = `[data-testid=approval][data-approval-id="${stepApprovalId}"]`;
    await page.click(`${card} [data-testid=amend-open]`);
    assert.deepEqual(JSON.parse(await page.inputValue(`${card} [data-testid=amend-params]`)), { name: 'alpha', level: 3 });
    await page.fill(`${card} [data-testid=amend-params]`, '{"name": "alpha", "level": 1}');
    await bobAmends({ name: 'alpha', level: 4 });
    await page.waitForFunction((selector) => /"level": 4/.test(document.querySelector(selector)?.textContent ?? ''), `${card} [data-testid=exact-action] [aria-label=Parameters]`);
    await page.click(`${card} [data-testid=amend-submit]`);
    const refused = await page.waitForSelector(`${card} [data-testid=amend-form] [data-testid=api-error][data-status="409"]`);
    assert.equal(await refused.getAttribute('data-code'), 'conflict');
    assert.match((await refused.textContent()) ?? '', /changed/);
    const stored = await world!.store.approvals.get(stepApprovalId);
    assert.deepEqual(stored?.params, { name: 'alpha', level: 4 }, "Bob's amendment stands");
    assert.deepEqual(
      stored?.amendments.map((a) => [a.operator, a.to.params]),
      [
        ['bob', { name: 'alpha', level: 3 }],
        ['bob', { name: 'alpha', level: 4 }],
      ],
    );
  });
});

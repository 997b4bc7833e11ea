// A plan's page when something goes wrong, in a real browser against an in-process server:
// - its intention cannot be read (the API's answer replaced by a 500 through playwright's
//   request routing): the error is shown as every API error is, and the outcome panel does not
//   claim "Completed, nothing waits for you" beside an "escalated to you" badge;
// - an address with a malformed % escape shows Not found, and the console goes on working;
// - a page that fails to render (fed an answer it cannot read) shows an error in its place, the
//   navigation stays, and another page opens normally (the console went blank until a reload).
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, makeWorld, step, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe("a plan's page when something fails (browser)", () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let planId = '';
  let intentionId = '';
  let token = '';
  let blockedPlanId = '';
  let operatorToken = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    // A completed escalation: its badge reads "escalated to you".
    const note = step('N1', { kind: 'internal', title: 'Tell the operator', spec: { action: 'notify_operator', message: 'Could not fix it; look at the unit.' } });
    const { plan, intention } = await world.plan(draftOf([note], { objective: 'Tell the operator' }));
    planId = plan.id;
    intentionId = intention.id;
    await world.executor().drain();
    assert.equal((await world.store.plans.get(planId))?.status, 'completed');
    // Two blocked steps side by side, each for an operator to release after checking the host.
    await world.allow('test.read');
    const blocked = await world.plan(
      draftOf([step('a', { kind: 'capability', capability: 'test.read', params: { name: 'a' } }), step('b', { kind: 'capability', capability: 'test.read', params: { name: 'b' } })], {
        objective: 'two blocked reads',
      }),
    );
    blockedPlanId = blocked.plan.id;
    for (const s of blocked.plan.steps) await world.store.steps.move('block', s.id, 'pending', { error: 'outcome unknown' });
    token = (await issueToken(world.store, { operator: 'alice', role: 'viewer' })).token;
    operatorToken = (await issueToken(world.store, { operator: 'olga', role: 'operator' })).token;
    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(token, route);

  it('shows an intention that could not be read as an API error, and no outcome it could not work out', async () => {
    const page = await signedIn('#/plans');
    let answered!: () => void;
    const refused = new Promise<void>((resolve) => {
      answered = resolve;
    });
    await page.route(
      (url) => url.pathname === `/api/v1/intentions/${intentionId}`,
      async (route) => {
        await route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ error: { code: 'internal', message: 'the store went away', problems: [] } }) });
        answered();
      },
    );
    await page.evaluate(`window.location.hash = ${JSON.stringify(`#/plans/${planId}`)}`);
    await page.waitForSelector('.plan-head [data-testid=status][data-status=escalated]');
    await refused;
    const error = await page.waitForSelector('[data-testid=api-error][data-status="500"]');
    const text = (await error.textContent()) ?? '';
    assert.match(text, /intention/);
    assert.match(text, /the store went away/);
    const outcome = (await page.textContent('[data-testid=outcome]')) ?? '';
    assert.doesNotMatch(outcome, /Completed|Nothing waits for you/);
    assert.equal(await page.getAttribute('[data-testid=outcome]', 'data-kind'), 'unknown');
  });

  it('a malformed escape in the address is Not found, and the console goes on', async () => {
    const page = await signedIn('#/plans/%E0%A4%A');
    await page.waitForSelector('h1:has-text("Not found")');
    await page.click('nav >> text=Plans');
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${planId}"]`);
  });

  it('a page that fails to render shows an error in its place; navigating away recovers', async () => {
    const page = await signedIn('#/plans');
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${planId}"]`);
    // An answer the plan page cannot read: no plan, no steps.
    await page.route(
      (url) => url.pathname === `/api/v1/plans/${planId}`,
      (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }),
    );
    await page.evaluate(`window.location.hash = ${JSON.stringify(`#/plans/${planId}`)}`);
    const error = await page.waitForSelector('[data-testid=page-error] [data-testid=api-error]');
    assert.match((await error.textContent()) ?? '', /could not be shown/);
    assert.ok(await page.$('[data-testid=whoami]'), 'the header stays');
    await page.click('nav >> text=Plans');
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${planId}"]`);
    assert.equal(await page.$('[data-testid=page-error]'), null);
  });

  it("a note typed to release one blocked step is not carried to another step's release form", async () => {
    const page = await session!.signedIn(operatorToken, `#/plans/${blockedPlanId}`);
    await page.click('[data-testid=graph-node][data-step-key=a]');
    await page.waitForSelector('[data-testid=step-detail][data-step-key=a] form.release');
    await page.fill('form.release input', 'checked host a');
    await page.click('[data-testid=graph-node][data-step-key=b]');
    await page.waitForSelector('[data-testid=step-detail][data-step-key=b] form.release');
    assert.equal(await page.inputValue('form.release input'), '', "b's form starts empty");
    assert.equal(await page.getAttribute('form.release', 'aria-label'), 'Release step b');
  });
});

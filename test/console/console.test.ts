// The operator console in a real browser (Chromium through playwright-core: support/browser.ts)
// against an in-process server, an executor loop and a simulated host. An operator approves a pending
// restart in the approval centre and, without a reload, the approval leaves the pending list and
// the plan page shows the step completed, both through the event stream. A viewer sees the same
// approval but is refused with 403; a bad token is refused at sign-in, and a token revoked while
// the console is open returns it to the sign-in box.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import type { Executor } from '../../src/execution/executor.ts';
import { makeWorld, restartPlan, UNIT, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe('operator console (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let executor: Executor | undefined;
  let session: ConsoleSession | undefined;
  let base = '';
  let planId = '';
  let approvalId = '';
  const tokens = { operator: '', viewer: '' };

  before(async () => {
    const chromiumPath = consolePrerequisites();

    ts = await openTestStore('sqlite');
    world = await makeWorld(ts, { simulated: true });
    world.host!.setUnit(UNIT, { active_state: 'failed', sub_state: 'failed', restart: { outcome: 'active' } });
    const { plan } = await world.plan(restartPlan());
    planId = plan.id;
    tokens.operator = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;
    tokens.viewer = (await issueToken(world.store, { operator: 'victor', role: 'viewer' })).token;

    // Policy asks before service.restart (the built-in default): the first pass raises the approval.
    executor = world.executor({ intervalMs: 250 });
    await executor.drain();
    const pending = await world.store.approvals.list({ mindId: world.mind.id, status: 'pending' });
    assert.equal(pending.length, 1, 'the restart awaits approval');
    approvalId = pending[0]!.id;
    executor.start();

    // A default launch runs on a fresh, throwaway profile directory of its own.
    session = await openConsole(world, chromiumPath);
    base = session.base;
  });

  after(async () => {
    await session?.close();
    await executor?.stop();
    world?.host?.remove();
    await ts?.dispose();
  });

  const newPage = (): Promise<Page> => session!.newPage();

  /** Opens the console signed in through a `#token=` link, then goes to `route`. */
  async function signedIn(token: string, route: string): Promise<Page> {
    const page = await newPage();
    await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
    await page.waitForSelector('[data-testid=whoami]');
    assert.doesNotMatch(page.url(), /token=/, 'the token is removed from the address bar');
    await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
    return page;
  }

  const approvalCard = () => `[data-testid=approval][data-approval-id="${approvalId}"]`;

  it('refuses a bad token at sign-in with the API error', async () => {
    const page = await newPage();
    await page.goto(`${base}/`);
    await page.fill('#token-input', 'praxis_not-a-real-token');
    await page.click('button[type=submit]');
    const error = await page.waitForSelector('[data-testid=sign-in] [data-testid=api-error]');
    const text = (await error.textContent()) ?? '';
    assert.match(text, /unauthenticated/);
    assert.match(text, /401/);
    assert.equal(await page.$('[data-testid=whoami]'), null, 'still signed out');
  });

  it('a sign-in link into a filtered page signs in and keeps the page and its filter', async () => {
    const page = await newPage();
    await page.goto(`${base}/#/plans?token=${encodeURIComponent(tokens.viewer)}&status=completed`);
    await page.waitForSelector('[data-testid=whoami]');
    assert.equal(new URL(page.url()).hash, '#/plans?status=completed');
    assert.equal(await page.inputValue('[data-testid=filter-status]'), 'completed');
  });

  it('shows the plan graph with one node per step and an edge per dependency', async () => {
    const page = await signedIn(tokens.operator, `#/plans/${planId}`);
    await page.waitForSelector('[data-testid=plan-graph]');
    assert.equal((await page.$$('[data-testid=plan-graph] [data-testid=graph-node]')).length, 2);
    assert.equal((await page.$$('[data-testid=plan-graph] [data-testid=graph-edge]')).length, 1);
    await page.waitForSelector('[data-testid=graph-node][data-step-key=P1][data-status=awaiting_approval]');
    await page.click('[data-testid=graph-node][data-step-key=P1]');
    const detail = (await (await page.waitForSelector('[data-testid=step-detail][data-step-key=P1]')).textContent()) ?? '';
    assert.match(detail, /atlas-worker is active/, 'the expectation');
    assert.match(detail, /not already running/, 'the precondition');
    assert.match(detail, /Approval/, 'the linked approval');
  });

  it('lets a viewer see the pending approval, but approving is refused with 403', async () => {
    const page = await signedIn(tokens.viewer, '#/approvals');
    const card = await page.waitForSelector(approvalCard());
    assert.match((await card.textContent()) ?? '', /atlas-worker\.service/);
    await page.click(`${approvalCard()} [data-testid=approve]`);
    const error = await page.waitForSelector(`${approvalCard()} [data-testid=api-error][data-status="403"]`);
    assert.match((await error.textContent()) ?? '', /forbidden/);
    assert.equal((await world!.store.approvals.get(approvalId))?.status, 'pending', 'nothing changed');
  });

  it('an operator approves the exact action; the approval centre and the plan page follow live', async () => {
    const centre = await signedIn(tokens.operator, '#/approvals');
    const plan = await signedIn(tokens.operator, `#/plans/${planId}`);
    await plan.waitForSelector('[data-testid=graph-node][data-step-key=P1][data-status=awaiting_approval]');
    await plan.waitForSelector('[data-testid=stream-state][data-state=live]');
    await centre.waitForSelector('[data-testid=stream-state][data-state=live]');

    const action = (await (await centre.waitForSelector(`${approvalCard()} [data-testid=exact-action]`)).textContent()) ?? '';
    assert.match(action, /service\.restart/);
    assert.match(action, /atlas-worker\.service/);
    assert.match(action, /"unit": "atlas-worker\.service"/);
    assert.equal(await centre.textContent(`${approvalCard()} [data-testid=action-capability]`), 'service.restart');
    assert.equal(await centre.textContent(`${approvalCard()} [data-testid=action-target]`), UNIT);

    // Marks that survive only if neither page reloads.
    await centre.evaluate('window.__sameDocument = true');
    await plan.evaluate('window.__sameDocument = true');

    await centre.click(`${approvalCard()} [data-testid=approve]`);
    await centre.waitForSelector(approvalCard(), { state: 'detached' });
    await centre.waitForSelector(`[data-testid=decision-history] [data-testid=history-item][data-id="${approvalId}"]`);

    // The plan page took no action itself: only the stream can tell it the step moved on.
    await plan.waitForSelector('[data-testid=graph-node][data-step-key=P1][data-status=completed]');
    await plan.waitForSelector('[data-testid=plan-page][data-plan-status=completed]');
    assert.equal(await centre.evaluate('window.__sameDocument === true'), true, 'the approval centre did not reload');
    assert.equal(await plan.evaluate('window.__sameDocument === true'), true, 'the plan page did not reload');
    assert.deepEqual(world!.errors, [], 'the executor logged no error');
  });

  it('a token revoked while the console is open ends its stream and returns it to the sign-in box', async () => {
    const issued = await issueToken(world!.store, { operator: 'rosa', role: 'viewer' });
    // The approval centre does not reload for a note, so only the stream can notice the revocation.
    const page = await signedIn(issued.token, '#/approvals');
    await page.waitForSelector('[data-testid=stream-state][data-state=live]');
    await world!.store.accessTokens.revoke(issued.record.id);
    // The next event is not sent on the revoked token: the server ends the stream instead, and the
    // reconnect is refused with 401.
    await world!.store.events.append({ type: 'operator_note', mindId: world!.mind.id, data: { note: 'after revoking' } });
    const box = await page.waitForSelector('[data-testid=sign-in]');
    assert.match((await box.textContent()) ?? '', /no longer accepts this token/);
  });
});

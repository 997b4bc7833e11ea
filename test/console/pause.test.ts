// Pausing and resuming a plan from its page, in a real browser against an in-process server: a
// plan waiting for an approval shows `awaiting_approval`; the operator pauses it with a reason,
// the page shows it paused (badge, who and why) and its timeline records the pause with the
// operator and reason; resuming clears it. The store agrees at each step.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, makeWorld, step, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe('pausing a plan from its page (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let planId = '';
  let token = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', title: 'Write alpha', capability: 'test.write', params: { name: 'alpha' } })]));
    planId = plan.id;
    token = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;
    await world.executor().drain();
    assert.equal((await world.store.plans.get(planId))?.status, 'awaiting_approval');

    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(token, route);

  it('pauses with a reason, shows who paused it and why, records it in the timeline, and resumes', async () => {
    const page = await signedIn(`#/plans/${planId}`);
    await page.waitForSelector('[data-testid=plan-page][data-plan-status=awaiting_approval][data-plan-paused=false]');

    await page.fill('[data-testid=pause-reason]', 'change freeze');
    await page.click('[data-testid=pause-plan]');
    await page.waitForSelector('[data-testid=plan-page][data-plan-paused=true]');
    const notice = (await (await page.waitForSelector('[data-testid=paused-notice]')).textContent()) ?? '';
    assert.match(notice, /Paused by alice/);
    assert.match(notice, /Why: change freeze/);
    await page.waitForSelector('[data-testid=timeline-event][data-type=plan_paused]');
    const event = (await page.textContent('[data-testid=timeline-event][data-type=plan_paused]')) ?? '';
    assert.match(event, /alice/);
    assert.match(event, /change freeze/);
    assert.equal((await world!.store.plans.get(planId))?.pause?.reason, 'change freeze');

    await page.click('[data-testid=resume-plan]');
    await page.waitForSelector('[data-testid=plan-page][data-plan-paused=false]');
    await page.waitForSelector('[data-testid=timeline-event][data-type=plan_resumed]');
    assert.equal((await world!.store.plans.get(planId))?.pause, null);
  });
});

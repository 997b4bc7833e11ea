// The plans list in a real browser against an in-process server. Answers of the API are held
// back (playwright's request routing) to look at the page while a request is under way, so the
// assertions wait for events, never for time:
// - a new filter drops the old filter's rows at once and says it is loading (they stood under the
//   new filter until its answer came);
// - "Load more" keeps the rows shown, and the page's scroll, while the next page loads (the
//   table emptied and the page jumped to the top);
// - the objective box, which narrows only the rows loaded, says so while more pages remain
//   (it said "No plans match." over a match on the next page);
// - a mind named by its name in the address is the one chosen in the mind picker (it said "any").
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import type { MindRecord } from '../../src/store/index.ts';
import { draftOf, makeWorld, readStep, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

/** Holds back GET /api/v1/plans requests that `match` until released. */
async function holdPlans(page: Page, match: (query: URLSearchParams) => boolean) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let seen!: () => void;
  const asked = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const matches = (url: URL) => url.pathname === '/api/v1/plans' && match(url.searchParams);
  await page.route(matches, async (route) => {
    seen();
    await gate;
    await route.continue();
  });
  // Once released, later requests pass straight through (the route stays until the page closes).
  return { asked, release };
}

/** Lets the page render what it has (two frames and a task), so what it shows can be read. */
const settled = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));

const rowIds = (page: Page) => page.$$eval('[data-testid=plan-row]', (rows) => rows.map((row) => row.getAttribute('data-plan-id') ?? ''));

describe('the plans list (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let other: MindRecord;
  let otherPlanId = '';
  const busyPlans: string[] = [];
  let token = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    // More plans than one page (50) in the world's mind, one in another.
    for (let i = 0; i < 53; i++) busyPlans.push((await world.plan(draftOf([readStep('R1')], { objective: `Read alpha ${i}` }))).plan.id);
    other = await world.store.minds.create({ name: `lab-${world.mind.id.slice(-8)}` });
    otherPlanId = (await world.plan(draftOf([readStep('R1')], { objective: 'Read beta' }), { mind: other })).plan.id;
    token = (await issueToken(world.store, { operator: 'alice', role: 'viewer' })).token;
    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(token, route);

  it('a new filter drops the old rows at once and says it is loading', async () => {
    const page = await signedIn(`#/plans?mind=${world!.mind.id}`);
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${busyPlans.at(-1)}"]`);
    const held = await holdPlans(page, (query) => query.get('mind') === other.id);
    await page.selectOption('[data-testid=filter-mind]', other.id);
    await held.asked;
    await settled(page);
    assert.deepEqual(await rowIds(page), [], "the first mind's rows are not shown under the second mind");
    assert.ok(await page.$('text=Loading plans'), 'it says it is loading');
    held.release();
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${otherPlanId}"]`);
    assert.deepEqual(await rowIds(page), [otherPlanId]);
  });

  it('"Load more" keeps the rows shown and the scroll while the next page loads, then appends', async () => {
    const page = await signedIn(`#/plans?mind=${world!.mind.id}`);
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${busyPlans.at(-1)}"]`);
    const first = await rowIds(page);
    assert.equal(first.length, 50);
    const held = await holdPlans(page, (query) => query.has('cursor'));
    await page.click('button:has-text("Load more")');
    await held.asked;
    await settled(page);
    assert.deepEqual(await rowIds(page), first, 'the rows shown stay while the next page loads');
    const scrolled = await page.evaluate(() => window.scrollY);
    assert.ok(scrolled > 0, 'the page stays scrolled down to the button');
    held.release();
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${busyPlans[0]}"]`);
    assert.deepEqual(await rowIds(page), [...first, ...busyPlans.slice(0, 3).reverse()]);
    assert.equal(await page.$('button:has-text("Load more")'), null, 'nothing more to load');
    assert.equal(await page.evaluate(() => window.scrollY), scrolled, 'the page kept its scroll');
  });

  it('the objective box says it searched only the plans loaded so far, and a match on the next page is found by loading more', async () => {
    const page = await signedIn(`#/plans?mind=${world!.mind.id}`);
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${busyPlans.at(-1)}"]`);
    // "Read alpha 0" is the oldest plan: on the second page.
    await page.fill('input[type=search]', 'alpha 0');
    await page.waitForSelector('text=None of the 50 plans loaded so far match; load more to search further.');
    assert.deepEqual(await rowIds(page), []);
    await page.click('button:has-text("Load more")');
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${busyPlans[0]}"]`);
    assert.deepEqual(await rowIds(page), [busyPlans[0]]);
    assert.equal(await page.$('[data-testid=filter-note]'), null, 'everything is loaded and a plan matches: nothing to add');
    await page.fill('input[type=search]', 'gamma');
    assert.equal((await page.textContent('[data-testid=filter-note]'))?.trim(), 'No plans match.');
  });

  it('a mind named by its name in the address is the one chosen in the picker', async () => {
    const page = await signedIn(`#/plans?mind=${encodeURIComponent(other.name)}`);
    await page.waitForSelector(`[data-testid=plan-row][data-plan-id="${otherPlanId}"]`);
    await page.waitForSelector(`[data-testid=filter-mind] option[value="${other.id}"]`, { state: 'attached' });
    assert.equal(await page.inputValue('[data-testid=filter-mind]'), other.id);
  });
});

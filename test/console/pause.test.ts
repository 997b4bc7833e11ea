// Pausing and resuming a plan from its page, in a real browser against an in-process server: a
// plan waiting for an approval shows `awaiting_approval`; the operator pauses it with a reason,
// the page shows it paused (badge, who and why) and its timeline records the pause with the
// operator and reason; resuming clears it. The store agrees at each step.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { draftOf, makeWorld, step, type World } from '../execution/support.ts';
import { serverFor } from '../server/support.ts';
import { launchTestBrowser, testChromium } from '../support/browser.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';

const CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
const WAIT_MS = 8_000;

describe('pausing a plan from its page (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let app: FastifyInstance | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  let base = '';
  let planId = '';
  let token = '';

  before(async () => {
    if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
      throw new Error(`the console is not built (${CONSOLE_DIR}/index.html is missing): run \`npm run build:console\` first`);
    }
    const chromiumPath = testChromium();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    const { plan } = await world.plan(draftOf([step('W1', { kind: 'capability', title: 'Write alpha', capability: 'test.write', params: { name: 'alpha' } })]));
    planId = plan.id;
    token = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;
    await world.executor().drain();
    assert.equal((await world.store.plans.get(planId))?.status, 'awaiting_approval');

    app = await serverFor(world, { consoleDir: CONSOLE_DIR });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    base = address.replace('[::1]', '127.0.0.1');
    browser = await launchTestBrowser(chromiumPath);
  });

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close().catch(() => {});
    await app?.close();
    await ts?.dispose();
  });

  async function signedIn(route: string): Promise<Page> {
    const context = await browser!.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
    await page.waitForSelector('[data-testid=whoami]');
    await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
    return page;
  }

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

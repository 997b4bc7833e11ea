// Deciding in the approval centre, in a real browser against an in-process server: Enter in a
// capability request's denial note denies the request with that note (it once granted it and
// dropped the note); Enter in an approval's note decides nothing (the note serves Approve and
// Deny alike, so a button decides).
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
import { makeWorld, type World } from '../execution/support.ts';
import { openRequest, pendingApproval, serverFor } from '../server/support.ts';
import { launchTestBrowser, testChromium } from '../support/browser.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';

const CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
const WAIT_MS = 8_000;

describe('deciding in the approval centre (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let app: FastifyInstance | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  let base = '';
  let alice = '';

  before(async () => {
    if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
      throw new Error(`the console is not built (${CONSOLE_DIR}/index.html is missing): run \`npm run build:console\` first`);
    }
    const chromiumPath = testChromium();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    alice = (await issueToken(world.store, { operator: 'alice', role: 'operator' })).token;

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
    await page.goto(`${base}/#token=${encodeURIComponent(alice)}`);
    await page.waitForSelector('[data-testid=whoami]');
    await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
    return page;
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
});

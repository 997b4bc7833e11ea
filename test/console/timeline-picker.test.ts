// The timeline's mind picker, in a real browser against an in-process server: a timeline opened
// by its address (`#/minds/<name>/timeline` or `#/minds/<id>/timeline`) shows that mind chosen in
// the picker, not "choose…" (the options are ids, and a name matched none of them).
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
import { serverFor } from '../server/support.ts';
import { launchTestBrowser, testChromium } from '../support/browser.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';

const CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
const WAIT_MS = 8_000;

describe('the timeline mind picker (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let app: FastifyInstance | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  let base = '';
  let token = '';

  before(async () => {
    if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
      throw new Error(`the console is not built (${CONSOLE_DIR}/index.html is missing): run \`npm run build:console\` first`);
    }
    const chromiumPath = testChromium();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    // A second mind, so the picker has a choice to get wrong.
    await world.store.minds.create({ name: `other-${world.mind.id.slice(-8)}` });
    token = (await issueToken(world.store, { operator: 'alice', role: 'viewer' })).token;
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

  for (const by of ['name', 'id'] as const) {
    it(`chooses the mind the address names by its ${by}`, async () => {
      const page = await signedIn(`#/minds/${encodeURIComponent(world!.mind[by])}/timeline`);
      await page.waitForSelector(`[data-testid=timeline-mind] option[value="${world!.mind.id}"]`, { state: 'attached' });
      await page.waitForFunction((id) => (document.querySelector('[data-testid=timeline-mind]') as HTMLSelectElement | null)?.value === id, world!.mind.id).catch(() => {});
      assert.equal(await page.inputValue('[data-testid=timeline-mind]'), world!.mind.id);
      assert.equal((await page.$eval('[data-testid=timeline-mind]', (select) => (select as HTMLSelectElement).selectedOptions[0]?.textContent))?.trim(), world!.mind.name);
    });
  }
});

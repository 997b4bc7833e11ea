// The timeline's mind picker, in a real browser against an in-process server: a timeline opened
// by its address (`#/minds/<name>/timeline` or `#/minds/<id>/timeline`) shows that mind chosen in
// the picker, not "choose…" (the options are ids, and a name matched none of them).
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { issueToken } from '../../src/access/tokens.ts';
import { makeWorld, type World } from '../execution/support.ts';
import { openTestStore, type TestStore } from '../support/stores.ts';
import { consolePrerequisites, openConsole, type ConsoleSession } from './harness.ts';

describe('the timeline mind picker (browser)', () => {
  let ts: TestStore | undefined;
  let world: World | undefined;
  let session: ConsoleSession | undefined;
  let token = '';

  before(async () => {
    const chromiumPath = consolePrerequisites();
    ts = await openTestStore('sqlite');
    world = await makeWorld(ts);
    // A second mind, so the picker has a choice to get wrong.
    await world.store.minds.create({ name: `other-${world.mind.id.slice(-8)}` });
    token = (await issueToken(world.store, { operator: 'alice', role: 'viewer' })).token;
    session = await openConsole(world, chromiumPath);
  });

  after(async () => {
    await session?.close();
    await ts?.dispose();
  });

  const signedIn = (route: string): Promise<Page> => session!.signedIn(token, route);

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

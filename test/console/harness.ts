// What the browser tests of the console share: the built console served by an in-process server
// over a test world, a headless Chromium, and pages signed in through a `#token=` link.
//
// Needs the built console: `npm run build:console` (npm test builds it first).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { World } from '../execution/support.ts';
import { serverFor } from '../server/support.ts';
import { launchTestBrowser, testChromium } from '../support/browser.ts';

export const CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));
/** How long a page waits for what a test looks for. */
export const WAIT_MS = 8_000;

/**
 * The Chromium to drive, once the console is known to be built: call it first in `before`, so a
 * missing build or browser fails the file before a store is made.
 */
export function consolePrerequisites(): string {
  if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
    throw new Error(`the console is not built (${CONSOLE_DIR}/index.html is missing): run \`npm run build:console\` first`);
  }
  return testChromium();
}

export interface ConsoleSession {
  app: FastifyInstance;
  browser: Browser;
  /** The server's address, e.g. http://127.0.0.1:40123. */
  base: string;
  /** A page in a context of its own (no session shared with other pages). */
  newPage(): Promise<Page>;
  /** A page signed in with `token` through a `#token=` link, then gone to `route` (a `#/…` hash). */
  signedIn(token: string, route: string): Promise<Page>;
  /** Closes the pages, the browser and the server (not the world's store). */
  close(): Promise<void>;
}

/** Serves the built console over `world` and launches the browser at `chromiumPath`. */
export async function openConsole(world: World, chromiumPath: string): Promise<ConsoleSession> {
  const app = await serverFor(world, { consoleDir: CONSOLE_DIR });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const base = address.replace('[::1]', '127.0.0.1');
  let browser: Browser;
  try {
    browser = await launchTestBrowser(chromiumPath);
  } catch (error) {
    await app.close();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const newPage = async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    return page;
  };
  return {
    app,
    browser,
    base,
    newPage,
    async signedIn(token, route) {
      const page = await newPage();
      await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
      await page.waitForSelector('[data-testid=whoami]');
      await page.evaluate(`window.location.hash = ${JSON.stringify(route)}`);
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await app.close();
    },
  };
}

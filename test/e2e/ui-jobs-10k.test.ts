/**
 * The dashboard's jobs page with 10,000 jobs in the log (issue 16 item 4: "fast with 10,000 jobs
 * in the log (paged, virtualised lists)"), in Debian's chromium (/usr/bin/chromium) driven by
 * playwright-core against a real `plexus start --dev --demo` process.
 *
 * The data directory is filled in this process first: a node from the sources on the same
 * directory runs 10,000 jobs through the SDK (50 in flight) and stops; then the CLI node opens
 * it. The page must draw a bounded number of rows whatever is loaded, load older jobs page by
 * page as it is scrolled until it reaches the very first job, narrow the list with a filter,
 * and log no console error. No timings are asserted (bench/ui.bench.js measures the API).
 *
 * Fails (does not skip) when /usr/bin/chromium is missing: `apt-get install -y chromium`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createNode } from '../../src/node/index.js';
import { createPlexus } from '../../src/sdk/index.js';
import { built, cleanup, startNodeProcess, tempDir, type NodeProcess } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
/** Waits in the browser: generous, the machine may be loaded; never asserted as a timing. */
const WAIT = { timeout: 60_000 };
/** Scrolling through 50 pages of 200 on a loaded machine. */
const SCROLL_WAIT = { timeout: 240_000 };
const JOBS = 10_000;
/** Every tenth job fails (`1 / 0`), every fifth runs echo.echo, the rest math.evaluate. */
const FAILED = JOBS / 10;
const ECHO = JOBS / 5;
/** Rows the page may draw at once: the viewport's (60vh of 800 px, 36 px a row) plus overscan. */
const MAX_ROWS = 50;

function jobOf(i: number): { verb: string; input: JsonObject } {
  if (i % 10 === 3) return { verb: 'math.evaluate', input: { expression: '1 / 0' } };
  if (i % 5 === 4) return { verb: 'echo.echo', input: { n: i } };
  return { verb: 'math.evaluate', input: { expression: `${i} + 1` } };
}

/** Runs JOBS jobs on a node over `dataDir`, stops it, and answers the id of the first job. */
async function fill(dataDir: string): Promise<string> {
  const node = createNode({ dataDir, store: 'sqlite', host: '127.0.0.1', port: 0, dev: true, demo: true });
  await node.start();
  try {
    const plexus = createPlexus({ node });
    const first = jobOf(0);
    await plexus.invoke(first.verb, first.input);
    const oldest = (await node.runtime.jobs.list({ limit: 1 })).jobs[0]?.id;
    if (oldest === undefined) throw new Error('the first job is not listed');
    let next = 1;
    let failures = 0;
    const worker = async (): Promise<void> => {
      while (next < JOBS) {
        const { verb, input } = jobOf(next++);
        await plexus.invoke(verb, input).catch(() => {
          failures++;
        });
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    expect(failures).toBe(FAILED);
    return oldest;
  } finally {
    await node.stop({ drainMs: 0 });
  }
}

let node: NodeProcess;
let browser: Browser;
let page: Page;
let oldest: string;
let problems: string[] = [];

/** What the in-page functions below use of the DOM (this project's TypeScript has no DOM types). */
interface PageElement {
  scrollTop: number;
  readonly scrollHeight: number;
  readonly textContent: string | null;
}

/**
 * Run in the page: scrolls the list to its bottom, and is true once the summary says every job
 * is loaded. Self-contained: playwright sends its source to the page.
 */
function scrollDown(): boolean {
  const doc = (globalThis as unknown as { document: { querySelector(selector: string): PageElement | null } })
    .document;
  const viewport = doc.querySelector('.viewport');
  if (viewport !== null) viewport.scrollTop = viewport.scrollHeight;
  const summary = doc.querySelector('#jobs-summary')?.textContent ?? '';
  return summary.includes('loaded') && !summary.includes('scroll for more');
}

/** Run in the page: scrolls the list back to its top. */
function scrollUp(): void {
  const doc = (globalThis as unknown as { document: { querySelector(selector: string): PageElement | null } })
    .document;
  const viewport = doc.querySelector('.viewport');
  if (viewport !== null) viewport.scrollTop = 0;
}

/** The rows the page has in its DOM now. */
const rowsInDom = (): Promise<number> => page.locator('.viewport .row').count();

/**
 * Scrolls the list to its end again and again (the page loads the next page when its last rows
 * come into view) until the summary says nothing more is to load; bounded by SCROLL_WAIT.
 */
async function scrollToTheEnd(): Promise<string> {
  await page.waitForFunction(scrollDown, null, { ...SCROLL_WAIT, polling: 200 });
  return (await page.textContent('#jobs-summary')) ?? '';
}

describe('the jobs page with 10,000 jobs in the log', () => {
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    expect(built(), 'run `npm run build` first').toBe(true);
    const dataDir = join(tempDir(), 'data');
    oldest = await fill(dataDir);
    node = await startNodeProcess({ dataDir, timeoutMs: 120_000 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  }, 600_000);

  afterAll(async () => {
    await (browser as Browser | undefined)?.close();
    await cleanup();
  });

  beforeEach(() => {
    problems = [];
  });

  it('draws a bounded number of rows and reaches the very first job by scrolling', async () => {
    await page.goto(`${node.url}/ui/#/jobs`);
    await page.waitForSelector('.viewport .row', WAIT);
    await page.waitForSelector('#jobs-summary:has-text("scroll for more")', WAIT);
    expect(await page.textContent('#jobs-summary')).toBe('200 jobs loaded — scroll for more');
    const drawn = await rowsInDom();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThanOrEqual(MAX_ROWS);
    // the first job is not in the first page
    expect(await page.locator(`.viewport a.row[href="#/jobs/${oldest}"]`).count()).toBe(0);

    expect(await scrollToTheEnd()).toBe(`${JOBS} jobs loaded`);
    expect(await page.getAttribute('.jobs[role=table]', 'aria-rowcount')).toBe(String(JOBS + 1));
    // at the bottom: the oldest job, drawn as the last row, and still only a window of rows
    const first = page.locator(`.viewport a.row[href="#/jobs/${oldest}"]`);
    await first.waitFor(WAIT);
    expect(await first.getAttribute('aria-rowindex')).toBe(String(JOBS + 1));
    expect(await first.locator('.c-verb').textContent()).toBe('math.evaluate');
    expect(await rowsInDom()).toBeLessThanOrEqual(MAX_ROWS);
    // and back at the top, the newest
    await page.evaluate(scrollUp);
    await page.waitForSelector('.viewport a.row[aria-rowindex="2"]', WAIT);
    expect(await rowsInDom()).toBeLessThanOrEqual(MAX_ROWS);
    expect(problems).toEqual([]);
  }, 600_000);

  it('narrows the list with a state filter and a verb filter', async () => {
    await page.goto(`${node.url}/ui/#/jobs`);
    await page.waitForSelector('.viewport .row', WAIT);
    await page.selectOption('#job-state', 'failed');
    await page.click('form[aria-label="Job filters"] button[type=submit]');
    await page.waitForURL(/state=failed/, WAIT);
    await page.waitForSelector('.viewport .row .badge.failed', WAIT);
    expect(await scrollToTheEnd()).toBe(`${FAILED} jobs loaded`);
    const shown = await rowsInDom();
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThanOrEqual(MAX_ROWS);
    expect(await page.locator('.viewport .row .badge.failed').count()).toBe(shown);

    await page.selectOption('#job-state', '');
    await page.fill('#job-verb', 'echo.echo');
    await page.click('form[aria-label="Job filters"] button[type=submit]');
    await page.waitForURL(/verb=echo\.echo/, WAIT);
    await page.waitForSelector('#jobs-summary:has-text("scroll for more")', WAIT);
    const verbs = await page.locator('.viewport .row .c-verb').allTextContents();
    expect(verbs.length).toBeGreaterThan(0);
    expect(new Set(verbs)).toEqual(new Set(['echo.echo']));
    expect(await scrollToTheEnd()).toBe(`${ECHO} jobs loaded`);
    expect(problems).toEqual([]);
  }, 600_000);
});

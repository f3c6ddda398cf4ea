/**
 * The dashboard in a real browser (issue 16 item 4): Debian's chromium (/usr/bin/chromium,
 * installed by `.ci/run`; never a downloaded browser) driven by playwright-core against a real
 * `plexus start --dev --demo` process. Every page loads with no console error; a job submitted
 * by fetch appears live in the jobs list; the run-a-verb form runs math.evaluate and shows 98
 * for `2 * (3 + 4) ^ 2`; a failed job shows its recovery hint. Screenshots are kept as test
 * artefacts (test-results/ui/, gitignored) and copied to docs/images/ui-*.png for the docs.
 *
 * Fails (does not skip) when /usr/bin/chromium is missing: install it with
 * `apt-get install -y chromium`.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, built, cleanup, esrpRequest, startNodeProcess, type NodeProcess } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTEFACTS = join(ROOT, 'test-results', 'ui');
const DOCS_IMAGES = join(ROOT, 'docs', 'images');
/** Waits in the browser: generous, the machine may be loaded; never asserted as a timing. */
const WAIT = { timeout: 30_000 };

let node: NodeProcess;
let browser: Browser;
let page: Page;
/** Console errors and uncaught page errors, per test. */
let problems: string[] = [];

/** Saves a screenshot as an artefact and as the docs' image `ui-<name>.png`. */
async function screenshot(name: string): Promise<void> {
  const file = join(ARTEFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  copyFileSync(file, join(DOCS_IMAGES, `ui-${name}.png`));
}

/** Submits `verb` with `input` as an async ESRP job (as curl would) and returns the job id. */
async function submit(verb: string, input: unknown): Promise<string> {
  const res = await fetch(`${node.url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(esrpRequest(verb, input, 'async')),
  });
  const body = (await res.json()) as { job?: { job_id?: string } };
  expect(res.status, JSON.stringify(body)).toBe(202);
  const id = body.job?.job_id;
  if (id === undefined) throw new Error(`no job id in ${JSON.stringify(body)}`);
  return id;
}

/** Opens `#/<route>` and waits for its heading. */
async function open(route: string): Promise<void> {
  await page.goto(`${node.url}/ui/#/${route}`);
  await page.waitForSelector('#page-title', WAIT);
}

describe('the dashboard in a real browser', () => {
  beforeAll(async () => {
    // loud, not skipped: the dashboard's tests need the system's chromium
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    expect(built(), 'run `npm run build` first').toBe(true);
    mkdirSync(ARTEFACTS, { recursive: true });
    mkdirSync(DOCS_IMAGES, { recursive: true });
    node = await startNodeProcess({ timeoutMs: 60_000 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // a few jobs of each outcome, so the pages show something
    for (const expression of ['1 + 1', '6 * 7', '2 ^ 10']) await submit('math.evaluate', { expression });
    await submit('echo.echo', { hello: 'world' });
    await submit('text.summarize', {
      text: 'Plexus is a mesh. It runs agents. Agents answer verbs.',
      sentences: 1,
    });
  }, 120_000);

  afterAll(async () => {
    await (browser as Browser | undefined)?.close();
    await cleanup();
  });

  beforeEach(() => {
    problems = [];
  });

  it('loads every page without a console error, each with its heading focused', async () => {
    const pages: [string, string, string][] = [
      ['agents', 'Agents', '.card'],
      ['jobs', 'Jobs', '.viewport .row'],
      ['run', 'Run a verb', '#run-verb'],
      ['mesh', 'Mesh', 'table'],
      ['metrics', 'Metrics', '.chart'],
    ];
    for (const [route, title, content] of pages) {
      await open(route);
      await page.waitForSelector(content, WAIT);
      expect(await page.textContent('#page-title')).toBe(title);
      expect(await page.locator('#page-title:focus').count()).toBe(1);
      expect(await page.getAttribute(`nav a[href="#/${route}"]`, 'aria-current')).toBe('page');
      if (route === 'metrics') {
        // some traffic while the page samples, so the charts have something to draw
        for (let i = 0; i < 8; i++) await submit('math.evaluate', { expression: `${i} * 3` });
        await submit('math.evaluate', { expression: '1 +' }); // one error
        // two samples make a line: wait for a drawn segment
        await page
          .locator('.chart path.line[d*="L"]')
          .first()
          .waitFor({ ...WAIT, state: 'attached' });
      }
      await screenshot(route);
    }
    // the agents page shows the cards' facts, the mesh page the HTTP fallback
    await open('agents');
    await page.waitForSelector('.card', WAIT);
    const agents = await page.textContent('main');
    expect(agents).toContain('math.evaluate');
    expect(agents).toContain('Owning peer');
    expect(agents).toContain('Revision');
    await open('mesh');
    await page.waitForSelector('table', WAIT);
    expect(await page.textContent('main')).toContain('The libp2p mesh is off on this node');
    expect(problems).toEqual([]);
  }, 120_000);

  it('shows a job submitted by another client live in the jobs list', async () => {
    await open('jobs');
    await page.waitForSelector('#jobs-live.on', WAIT); // the feed is open
    const id = await submit('demo.slow', { seconds: 1, steps: 2 });
    const row = page.locator(`.viewport a.row[href="#/jobs/${id}"]`);
    await row.waitFor(WAIT);
    expect(await row.locator('.c-verb').textContent()).toBe('demo.slow');
    // and its state follows the job to the end, without reloading
    await page.waitForSelector(`.viewport a.row[href="#/jobs/${id}"] .badge.succeeded`, WAIT);
    // filters: only failed jobs (the first test made one) — the succeeded one leaves the list
    await page.selectOption('#job-state', 'failed');
    await page.click('form[aria-label="Job filters"] button[type=submit]');
    await row.waitFor({ ...WAIT, state: 'detached' });
    await page.waitForSelector('.viewport .row .badge.failed', WAIT);
    const shown = await page.locator('.viewport .row').count();
    expect(await page.locator('.viewport .row .badge.failed').count()).toBe(shown);
    expect(problems).toEqual([]);
  }, 120_000);

  it('runs math.evaluate from its form (keyboard only) and shows 98', async () => {
    await open('run/math.evaluate');
    // the verb's ui:form hints name the button
    expect(await page.textContent('form.run button[type=submit]')).toBe('Evaluate');
    const input = page.getByLabel('expression');
    await input.focus();
    await page.keyboard.type('2 * (3 + 4) ^ 2');
    await page.keyboard.press('Enter');
    const result = page.locator('[data-testid=run-result]');
    await result.waitFor(WAIT);
    const value = await result.locator('dt:has-text("value") + dd').textContent();
    expect(value).toBe('98');
    await screenshot('run');
    expect(problems).toEqual([]);
  }, 120_000);

  it('shows a failed job with its error and recovery hint', async () => {
    const id = await submit('math.evaluate', { expression: '1 / 0' });
    await open(`jobs/${id}`);
    await page.waitForSelector('[data-testid=job-state]:has-text("failed")', WAIT);
    const hint = await page.locator('[data-testid=recovery-hint]').textContent();
    expect(hint).toContain('What to do:');
    expect(hint).toContain('Fix the field');
    const main = await page.textContent('main');
    expect(main).toContain('division by zero');
    expect(main).toContain('job_failed');
    // the waterfall of its trace: one span, this job, failed, drawn as a bar
    const span = page.locator(`[data-testid=trace-waterfall] li[data-job="${id}"]`);
    await span.waitFor(WAIT);
    expect(await span.locator('[aria-current=true]').textContent()).toBe('math.evaluate');
    expect(await span.locator('.badge').textContent()).toBe('failed');
    expect(await span.locator('rect.span-bar').count()).toBe(1);
    await screenshot('job');
    expect(problems).toEqual([]);
  }, 120_000);
});

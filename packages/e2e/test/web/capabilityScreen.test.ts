import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { USAGE_SPOOL_FOLDER } from '@loadout/usage';
import { describe, expect, it } from 'vitest';
import { type Box, compareScreenshot } from './compareScreenshot.js';
import { PLUGIN_NAME, screenPerTest, TOKEN } from './startLoadoutScreen.js';

// The capability screen in Debian's Chromium against the real `loadout serve` over a real
// workspace: the owner's capabilities as a git repository, a project with its own `.agents/`, and
// a plugin installed from a local git repository.

const REPO = path.resolve(import.meta.dirname, '../../../..');
/** The README's pictures, the baseline the screen is compared with. */
const SCREENS = path.join(REPO, 'docs/screens');
/** Where a run's own screenshots go (ignored by git). */
const SHOTS = path.join(REPO, 'test-results/screens');

const { start } = screenPerTest();

/** The rows of one kind in one level group of the capabilities view. */
function rows(page: Page, kind: string, group: 'project' | 'global'): Locator {
  return page.locator(`section.kind[data-kind="${kind}"] [data-group="${group}"] li.row`);
}

async function ids(list: Locator): Promise<string[]> {
  return list.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id ?? ''));
}

/** The page's own fetch, with the token the page holds: what the screen itself could send. */
async function fetchFromPage(page: Page, method: string, url: string): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ({ method, url, token }) => {
      const response = await fetch(url, { method, headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: await response.json() };
    },
    { method, url, token: TOKEN },
  );
}

async function goTo(page: Page, view: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link', { name: new RegExp(`^${view}`, 'i') })
    .click();
  await page.locator(`main .view-${view.toLowerCase()}`).waitFor();
}

// A browser, a server and a workspace per test: more than the default 30 s on a busy two-core machine.
describe('the capability screen', { timeout: 90_000 }, () => {
  it('moves a project skill to global over a collision: the rows swap groups and the renamed id shows', async () => {
    const { page, project, capabilities, open } = await start();
    await open({ project });

    expect(await ids(rows(page, 'skill', 'project'))).toEqual(['pdf']);
    expect(await ids(rows(page, 'skill', 'global'))).not.toContain('pdf-2');
    const projectPdf = rows(page, 'skill', 'project').filter({ hasText: 'The shop’s own PDF invoices skill.' });
    await projectPdf.getByRole('button', { name: 'Move PDF to global' }).click();

    await projectPdf.waitFor({ state: 'detached' });
    const landed = page.locator('section.kind[data-kind="skill"] [data-group="global"] li.row[data-id="pdf-2"]');
    await landed.waitFor();
    expect(await rows(page, 'skill', 'project').count()).toBe(0);
    expect(await landed.locator('.id').textContent()).toBe('pdf-2');
    expect(await landed.locator('.name').textContent()).toBe('PDF (2)');
    expect(await landed.locator('.description').textContent()).toBe('The shop’s own PDF invoices skill.');
    // The owner's own pdf is untouched, and the status says what happened in words.
    expect(await ids(rows(page, 'skill', 'global'))).toEqual(expect.arrayContaining(['pdf', 'pdf-2']));
    expect(await page.getByRole('status').textContent()).toContain('landed as "pdf-2"');
    // Focus follows the moved row, so a keyboard user keeps their place.
    expect(await page.evaluate(() => document.activeElement?.closest('li.row')?.getAttribute('data-id'))).toBe('pdf-2');

    // On disk: the folder moved with its resource; no copy is left in the project.
    expect(fs.existsSync(path.join(project, '.agents/skills/pdf'))).toBe(false);
    const moved = fs
      .readdirSync(path.join(capabilities, 'skills'))
      .find((entry) => fs.existsSync(path.join(capabilities, 'skills', entry, 'invoice-template.md')));
    expect(moved).toBeDefined();

    // And back through "Move to project…", choosing the project in view from the dialog.
    await landed.getByRole('button', { name: 'Move PDF (2) to a project' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move PDF (2) to a project' });
    await dialog.waitFor();
    expect(await dialog.getByRole('radio', { name: /shop/ }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rows(page, 'skill', 'project').first().waitFor();
    expect(await rows(page, 'skill', 'project').locator('.name').allTextContents()).toEqual(['PDF (2)']);
    expect(await ids(rows(page, 'skill', 'global'))).not.toContain('pdf-2');
  });

  it('installs a plugin from its git URL; disabling it takes its rows out of the session view, enabling brings them back', async () => {
    const { page, pluginUrl, home, open } = await start();
    await open({ view: 'plugins' });

    // The progress line is on screen while git clones; record that it appeared.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        const progress = document.querySelector('#install-progress:not([hidden])');
        if (progress !== null) seen.push(progress.textContent ?? '');
      }).observe(document.querySelector('main') as Node, { subtree: true, childList: true, attributes: true });
    });
    await page.getByLabel('Git URL').fill(pluginUrl);
    await page.getByRole('button', { name: 'Install', exact: true }).click();
    const card = page.locator(`li.card[data-plugin="${PLUGIN_NAME}"]`);
    await card.waitFor();
    const progress = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(progress.some((text) => text.includes(`Cloning ${pluginUrl}`))).toBe(true);
    // Installed from the screen without approving: its task waits, so the card says held, not enabled.
    expect(await card.locator('.badge').textContent()).toBe('held: not approved');
    expect(fs.existsSync(path.join(home, 'plugins', PLUGIN_NAME, 'skills/lint/SKILL.md'))).toBe(true);

    await goTo(page, 'Capabilities');
    const lint = page.locator(`section.kind[data-kind="skill"] [data-group="global"] li.row[data-plugin="${PLUGIN_NAME}"]`);
    await lint.waitFor();
    expect(await lint.getAttribute('data-id')).toBe('lint');
    expect(await lint.locator('.source').textContent()).toContain(PLUGIN_NAME);

    await goTo(page, 'Plugins');
    await page.getByRole('button', { name: `Disable ${PLUGIN_NAME}` }).click();
    await page.getByRole('button', { name: `Enable ${PLUGIN_NAME}` }).waitFor();
    expect(await card.locator('.badge').textContent()).toBe('disabled');
    await goTo(page, 'Capabilities');
    await page.locator('section.kind[data-kind="skill"]').waitFor();
    expect(await page.locator(`li.row[data-plugin="${PLUGIN_NAME}"]`).count()).toBe(0);
    expect(await page.locator('.note').textContent()).toContain('capabilities of disabled plugins');
    const session = (await fetchFromPage(page, 'GET', '/api/session')).body as { skills: { id: string }[] };
    expect(session.skills.map((skill) => skill.id)).not.toContain('lint');

    await goTo(page, 'Plugins');
    await page.getByRole('button', { name: `Enable ${PLUGIN_NAME}` }).click();
    await page.getByRole('button', { name: `Disable ${PLUGIN_NAME}` }).waitFor();
    await goTo(page, 'Capabilities');
    await lint.waitFor();
    expect(await page.locator(`li.row[data-plugin="${PLUGIN_NAME}"]`).count()).toBeGreaterThan(0);

    // Uninstall asks first: Escape keeps it and puts focus back on the button.
    await goTo(page, 'Plugins');
    const uninstall = page.getByRole('button', { name: `Uninstall ${PLUGIN_NAME}` });
    await uninstall.click();
    const confirm = page.getByRole('dialog', { name: `Uninstall ${PLUGIN_NAME}?` });
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Uninstall ${PLUGIN_NAME}`);
    expect(fs.existsSync(path.join(home, 'plugins', PLUGIN_NAME))).toBe(true);
    await uninstall.click();
    await confirm.getByRole('button', { name: 'Uninstall' }).click();
    await card.waitFor({ state: 'detached' });
    expect(fs.existsSync(path.join(home, 'plugins', PLUGIN_NAME))).toBe(false);
  });

  it("shows whose a plugin's task is instead of edit and delete, and the API refuses the delete anyway", async () => {
    const { page, home, open } = await start({ installPlugin: true });
    await open({ view: 'tasks' });

    const pluginTask = page.locator('li.task-row[data-dir-name="lint-report"]');
    await pluginTask.waitFor();
    expect(await pluginTask.locator('.provided-by').textContent()).toBe(`Provided by ${PLUGIN_NAME}`);
    expect(await pluginTask.getByRole('button', { name: /delete/i }).count()).toBe(0);
    expect(await pluginTask.getByRole('button', { name: /edit/i }).count()).toBe(0);
    expect(await pluginTask.getByRole('button', { name: 'Run lint-report' }).count()).toBe(1);
    const ownerTask = page.locator('li.task-row[data-dir-name="word-count"]');
    expect(await ownerTask.getByRole('button', { name: 'Delete word-count' }).count()).toBe(1);

    const refused = await fetchFromPage(page, 'DELETE', '/api/tasks/lint-report');
    expect(refused.status).toBe(409);
    expect((refused.body as { error: { message: string } }).error.message).toContain(PLUGIN_NAME);
    expect(fs.existsSync(path.join(home, 'plugins', PLUGIN_NAME, 'tasks/lint-report/TASK.md'))).toBe(true);
    await page.reload();
    await pluginTask.waitFor();
  });

  it("creates, edits and deletes the owner's task", async () => {
    const { page, capabilities, open } = await start();
    await open({ view: 'tasks' });

    await page.getByRole('button', { name: 'New task…' }).click();
    const create = page.getByRole('dialog', { name: 'New task' });
    await create.getByLabel('Folder name').fill('greet');
    await create.getByLabel('Name', { exact: true }).fill('greet');
    await create.getByLabel('Description').fill('Greets whoever is named in the input.');
    await create.getByRole('button', { name: 'Create task' }).click();
    await create.waitFor({ state: 'detached' });
    const row = page.locator('li.task-row[data-dir-name="greet"]');
    await row.waitFor();
    expect(fs.existsSync(path.join(capabilities, 'tasks/greet/TASK.md'))).toBe(true);

    await row.getByRole('button', { name: 'Edit greet' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit greet' });
    await edit.getByLabel('Description').fill('Greets warmly.');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.filter({ hasText: 'Greets warmly.' }).waitFor();

    // A refused request is shown in words inside the dialog, which stays open.
    await row.getByRole('button', { name: 'Edit greet' }).click();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    expect(await edit.getByRole('alert').textContent()).toBe('Nothing changed.');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await row.getByRole('button', { name: 'Delete greet' }).click();
    await page.getByRole('dialog', { name: 'Delete greet?' }).getByRole('button', { name: 'Delete task' }).click();
    await row.waitFor({ state: 'detached' });
    expect(fs.existsSync(path.join(capabilities, 'tasks/greet'))).toBe(false);
  });

  it("shows an unapproved plugin's task as held with an Approve action; approving lets it run", async () => {
    const { page, home, open } = await start({ installPlugin: true, approvePlugin: false });
    await open({ view: 'tasks' });

    const pluginTask = page.locator('li.task-row[data-dir-name="lint-report"]');
    await pluginTask.waitFor();
    expect(await pluginTask.getAttribute('data-held')).toBe('unapproved-plugin');
    expect(await pluginTask.locator('.held').textContent()).toContain(`plugin ${PLUGIN_NAME} is not approved`);
    expect(await pluginTask.getByRole('button', { name: 'Run lint-report' }).count()).toBe(0);
    // The API refuses to run it as well, and nothing is queued.
    const refused = await page.evaluate(
      async ({ token }) => {
        const response = await fetch('/api/tasks/lint-report/runs', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: response.status, body: (await response.json()) as { error: { code: string } } };
      },
      { token: TOKEN },
    );
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'CAPABILITY_UNTRUSTED' } } });
    expect((await fetchFromPage(page, 'GET', '/api/jobs')).body).toEqual([]);

    await pluginTask.getByRole('button', { name: 'Approve lint-report' }).click();
    const dialog = page.getByRole('dialog', { name: `Approve ${PLUGIN_NAME}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await pluginTask.getByRole('button', { name: 'Run lint-report' }).waitFor();
    expect(await pluginTask.getAttribute('data-held')).toBe('');
    expect(await page.getByRole('status').textContent()).toContain(`Approved ${PLUGIN_NAME}`);

    await pluginTask.getByRole('button', { name: 'Run lint-report' }).click();
    await page.locator('#run-panel').getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('log', { name: 'Output of lint-report' }).filter({ hasText: 'no findings' }).waitFor();
    expect(fs.existsSync(path.join(home, 'plugins', PLUGIN_NAME))).toBe(true);
  });

  it('runs a task and shows its output as it arrives, then the run among past runs', async () => {
    const { page, home, open } = await start();
    await open({ view: 'tasks' });
    const release = path.join(home, 'release-the-task');

    await page.getByRole('button', { name: 'Run gated-echo' }).click();
    const input = page.getByLabel('Input (JSON, given to the task on stdin)');
    // The input has focus, ready to type into.
    await page.waitForFunction(() => document.activeElement?.id === 'run-input');
    await input.fill(JSON.stringify({ release }));
    await page.locator('#run-panel').getByRole('button', { name: 'Run', exact: true }).click();

    const output = page.getByRole('log', { name: 'Output of gated-echo' });
    await output.filter({ hasText: 'first line: started' }).waitFor();
    // The first line is on screen while the task still runs: it arrived live, not at the end.
    expect(await output.textContent()).not.toContain('second line');
    expect(await page.locator('#run-status .badge').textContent()).toBe('running');

    fs.writeFileSync(release, '');
    await output.filter({ hasText: 'second line: released' }).waitFor();
    await page.locator('#run-status .badge', { hasText: 'succeeded' }).waitFor();
    const past = page.getByRole('list', { name: 'Past runs of gated-echo' });
    await past.locator('li', { hasText: 'succeeded' }).first().waitFor();
    await page.getByRole('table').locator('tr', { hasText: 'gated-echo' }).first().waitFor();
  });

  it('works from the keyboard alone: reach a switch with Tab, flip it, open and leave a dialog', async () => {
    const { page, project, open } = await start();
    await open({ project });
    // The descriptions of what is off and the usage ledger come after the first drawing, with one
    // redraw of the rows: the walk starts once that is done, as a person starts once the page settled.
    await page.locator('main .view-capabilities[data-described="true"]').waitFor();
    await page.locator('main').focus();

    const target = 'skill review: on';
    for (let presses = 0; presses < 60; presses += 1) {
      if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === target) break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(target);
    // Focus is visible: the focused switch draws an outline.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle)).toBe('solid');
    await page.keyboard.press('Space');
    const review = page.locator('section.kind[data-kind="skill"] [data-group="global"] li.row[data-id="review"]');
    await review.locator('.switch[aria-checked="false"]').waitFor();
    expect(await review.locator('.why').textContent()).toContain('Off · set for this project');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('skill review: off');

    // A dialog keeps Tab inside it, Escape closes it, and focus returns to what opened it.
    for (let presses = 0; presses < 10; presses += 1) {
      if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === 'Move review to a project') break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Move review to a project' });
    await dialog.waitFor();
    for (let presses = 0; presses < 12; presses += 1) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Move review to a project');

    // A refusal from the API is shown in words, as an alert.
    await page.getByLabel('Project', { exact: true }).fill(path.join(project, 'no-such-folder'));
    await page.keyboard.press('Enter');
    const alert = page.locator('#alerts [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Could not open project');
  });

  it('fits a phone-width screen without sideways scrolling', async () => {
    const { page, project, open } = await start({ installPlugin: true, viewport: { width: 375, height: 812 } });
    for (const view of ['capabilities', 'tasks', 'plugins', 'inbox']) {
      await open({ project, view });
      await page.locator(`main .view-${view}`).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${view} scrolls sideways`).toBeLessThanOrEqual(0);
    }
  });

  it('draws the main views as the README pictures show them', async () => {
    const { page, project, home, open, loadout } = await start({ installPlugin: true });
    const shots: { name: string; ignore: Box[] }[] = [];
    /** Saves the page to test-results/screens; `volatile` holds what differs on every run by design. */
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
    // Some history to show: a finished run (which also fills the inbox) and a switched-off skill.
    loadout('capability', 'set', 'skill/review', '--disable', '--project', project);
    // And a use of pdf, as a runtime's hook leaves it in the usage spool: the ledger takes it in.
    const spool = path.join(home, '.loadout', USAGE_SPOOL_FOLDER);
    fs.mkdirSync(spool, { recursive: true });
    const use = {
      v: 1,
      at: new Date().toISOString(),
      runtime: 'claude-code',
      project,
      kind: 'skill',
      name: 'pdf',
      event: 'invoked',
      session: 's1',
    };
    fs.writeFileSync(path.join(spool, 'screens.jsonl'), `${JSON.stringify(use)}\n`);
    // `loadout usage` takes the spool in at once; the server's own intake runs on a timer, which the
    // first drawing would otherwise race.
    loadout('usage', '--json');
    await open({ project });
    // The descriptions of what is off and the usage ledger arrive after the first drawing.
    await page.locator('main .view-capabilities[data-described="true"]').waitFor();
    await shoot('capabilities', ['.view-capabilities .lede', '.usage.used']);

    // The Usage filter: used shows pdf alone among the skills, unused everything else the ledger counts.
    const usageChip = (name: string) => page.locator('[data-filter="usage"]').getByRole('button', { name, exact: true });
    await usageChip('Used').click();
    expect(await ids(page.locator('section.kind[data-kind="skill"] li.row'))).toEqual(['pdf']);
    await expect.poll(() => page.locator('li.row .usage.used').first().textContent()).toMatch(/^Used 1× · last \d{4}-\d\d-\d\d$/);
    await usageChip('Unused').click();
    expect(await ids(page.locator('section.kind[data-kind="skill"] li.row'))).not.toContain('pdf');
    await usageChip('Any use').click();

    await rows(page, 'skill', 'global')
      .filter({ hasText: 'Read, fill and merge' })
      .getByRole('button', { name: 'Move pdf to a project' })
      .click();
    await page.getByRole('dialog').waitFor();
    await shoot('move-to-project', ['.view-capabilities .lede', 'dialog .choice-path']);
    await page.keyboard.press('Escape');

    await goTo(page, 'Tasks');
    const release = path.join(home, 'released');
    fs.writeFileSync(release, '');
    await page.getByRole('button', { name: 'Run gated-echo' }).click();
    await page.getByLabel('Input (JSON, given to the task on stdin)').fill(JSON.stringify({ release }));
    await page.locator('#run-panel').getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('#run-status .badge', { hasText: 'succeeded' }).waitFor();
    await page.mouse.move(0, 0);
    await shoot('tasks', ['#run-input']);

    await goTo(page, 'Plugins');
    await page.locator('li.card').first().waitFor();
    await shoot('plugins', ['li.card .facts dd:nth-of-type(-n+3)']);

    await goTo(page, 'Inbox');
    await page.locator('li.notification').first().waitFor();
    await shoot('inbox');

    await page.setViewportSize({ width: 375, height: 812 });
    await goTo(page, 'Capabilities');
    await page.locator('main .view-capabilities[data-described="true"]').waitFor();
    await shoot('capabilities-phone', ['.view-capabilities .lede']);

    for (const { name, ignore } of shots) {
      const actual = fs.readFileSync(path.join(SHOTS, `${name}.png`));
      expect(actual.length, name).toBeGreaterThan(10_000);
      // `pnpm screens` makes these the README's pictures; every other run compares with them.
      if (process.env.LOADOUT_UPDATE_SCREENS === '1') {
        fs.copyFileSync(path.join(SHOTS, `${name}.png`), path.join(SCREENS, `${name}.png`));
        continue;
      }
      const comparison = compareScreenshot(actual, fs.readFileSync(path.join(SCREENS, `${name}.png`)), ignore);
      if (!comparison.matches && comparison.sameSize) fs.writeFileSync(path.join(SHOTS, `${name}.diff.png`), comparison.diff);
      expect(
        { name, sameSize: comparison.sameSize, matches: comparison.matches },
        `${name}: ${comparison.differentPixels} pixels differ from docs/screens/${name}.png (see test-results/screens/${name}.diff.png; \`pnpm screens\` redraws the pictures when the change is meant)`,
      ).toEqual({ name, sameSize: true, matches: true });
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { gitRepo } from '@loadout/kernel/testing';
import { testdir } from '@loadout/files/testing';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PLUGIN_NAME, screenPerTest, TOKEN } from './startLoadoutScreen.js';

// The capabilities screen at scale (issue 34): filters by state and kind, a search that `/`
// focuses, grouping by plugin, held as a state of its own, marketplaces browsed and installed
// from, and the cost of drawing and filtering 10,000 skills read through the real server.

const REPO = path.resolve(import.meta.dirname, '../../../..');
/** Where the measured figures go (ignored by git). */
const FIGURES = path.join(REPO, 'test-results/perf');

const { start, stop } = screenPerTest();

/** `kind/id` of every capability row in view (shadowed copies included), sorted. */
async function shownRows(page: Page): Promise<string[]> {
  const keys = await page
    .locator('main .view-capabilities li.row')
    .evaluateAll((items) => items.map((item) => `${(item as HTMLElement).dataset.kind}/${(item as HTMLElement).dataset.id}`));
  return keys.sort();
}

/** A JSON-RPC call from the page, with the token it holds. */
async function rpcFromPage(page: Page, method: string, params: unknown): Promise<unknown> {
  return page.evaluate(
    async ({ method, params, token }) => {
      const response = await fetch('/rpc', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await response.json()) as { result: unknown }).result;
    },
    { method, params, token: TOKEN },
  );
}

async function chip(page: Page, group: 'Show states' | 'Show kinds', name: string): Promise<void> {
  await page
    .getByRole('group', { name: group })
    .getByRole('button', { name: new RegExp(`^${name}\\b`) })
    .click();
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

describe('the capabilities screen at scale', { timeout: 120_000 }, () => {
  it('filter "held" shows exactly the held capabilities; a held switch does not look on and a held plugin is not "enabled"', async () => {
    const { page, project, open } = await start({ installPlugin: true, approvePlugin: false });
    // The project's own server, held until the project is trusted, beside the unapproved plugin's task.
    fs.mkdirSync(path.join(project, '.agents', 'servers'), { recursive: true });
    fs.writeFileSync(path.join(project, '.agents', 'servers', 'shop-db.json'), JSON.stringify({ name: 'shop-db', command: 'shop-db-mcp' }));
    await open({ project });

    const state = (await rpcFromPage(page, 'capability.state', { project })) as {
      capabilities: { kind: string; id: string; held: string | null }[];
    };
    const held = state.capabilities
      .filter((entry) => entry.held !== null)
      .map((entry) => `${entry.kind}/${entry.id}`)
      .sort();
    expect(held).toEqual(['server/shop-db', 'task/lint-report']);

    await chip(page, 'Show states', 'Held');
    await page.waitForFunction(() => document.querySelectorAll('main li.row:not([data-state="held"])').length === 0);
    expect(await shownRows(page)).toEqual(held);
    for (const row of await page.locator('main li.row').all()) {
      expect(await row.locator('.why').textContent()).toMatch(/^Why: Held · /);
      expect(await row.locator('.switch').getAttribute('aria-label')).toContain('held');
    }
    // Neither on nor off: the knob sits between the two, in the warning colour, not the accent.
    const knob = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => {
          const style = getComputedStyle(element.querySelector('.knob') as Element);
          return { transform: style.transform, colour: style.backgroundColor, track: getComputedStyle(element).backgroundColor };
        });
    const heldKnob = await knob('main li.row[data-state="held"] .switch');
    await chip(page, 'Show states', 'On');
    await page.locator('main li.row[data-state="on"]').first().waitFor();
    expect(await page.locator('main li.row[data-state="held"]').count()).toBe(0);
    const onKnob = await knob('main li.row[data-state="on"] .switch');
    expect(heldKnob.transform).not.toBe(onKnob.transform);
    expect(heldKnob.colour).not.toBe(onKnob.colour);
    expect(heldKnob.track).not.toBe(onKnob.track);

    await page
      .getByRole('navigation', { name: 'Views' })
      .getByRole('link', { name: /^Plugins/ })
      .click();
    const card = page.locator(`li.card[data-plugin="${PLUGIN_NAME}"]`);
    expect(await card.locator('.badge').textContent()).toBe('held: not approved');
  });

  it('subagents, commands and hooks are shown under their own headings and filtered by kind like the others', async () => {
    const { page, project, open } = await start({});
    const write = (relative: string, text: string): void => {
      fs.mkdirSync(path.dirname(path.join(project, '.agents', relative)), { recursive: true });
      fs.writeFileSync(path.join(project, '.agents', relative), text);
    };
    write('agents/review-bot.md', '---\nname: review-bot\ndescription: Reviews a change.\n---\nYou review.\n');
    write('commands/deploy.md', '---\ndescription: Deploy the app\n---\nDeploy to $ARGUMENTS.\n');
    write('hooks/hooks.json', JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo hi' }] }] } }));
    await open({ project });
    for (const [kind, heading] of [
      ['agent', 'Subagents'],
      ['command', 'Commands'],
      ['hook', 'Hooks'],
    ]) {
      await expect.poll(() => page.locator(`section.kind[data-kind="${kind}"] > h2`).textContent()).toBe(`${heading}1`);
    }
    await chip(page, 'Show kinds', 'Subagents');
    await page.waitForFunction(() => document.querySelectorAll('main section.kind').length === 1);
    expect(await shownRows(page)).toEqual(['agent/review-bot']);
    await chip(page, 'Show kinds', 'Hooks');
    await page.waitForFunction(() => document.querySelector('main section.kind')?.getAttribute('data-kind') === 'hook');
    expect(await shownRows(page)).toEqual(['hook/hooks-session-start']);
    // A hook runs code: in a project not trusted yet it is held, and the "Held" filter finds it.
    await chip(page, 'Show kinds', 'All');
    await chip(page, 'Show states', 'Held');
    await page.waitForFunction(() => document.querySelectorAll('main li.row').length === 1);
    expect(await shownRows(page)).toEqual(['hook/hooks-session-start']);
  });

  it('/ focuses the search, which filters as it is typed; filters by state from the keyboard; groups by plugin', async () => {
    const { page, project, open, loadout } = await start({ installPlugin: true });
    loadout('capability', 'set', 'skill/review', '--disable', '--project', project);
    await open({ project });
    await page.locator('main').focus();

    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('capability-filter');
    // The description is searched too.
    await page.keyboard.type('merged pull');
    await page.waitForFunction(() => document.querySelectorAll('main li.row').length === 1);
    expect(await shownRows(page)).toEqual(['skill/release-notes']);
    // A plugin's name finds what it provides.
    await page.keyboard.press('Control+A');
    await page.keyboard.type(PLUGIN_NAME);
    await page.waitForFunction(() => document.querySelectorAll('main li.row').length === 2);
    expect(await shownRows(page)).toEqual(['skill/lint', 'task/lint-report']);
    // Typing `/` in the search is a character, not the shortcut.
    await page.keyboard.press('Control+A');
    await page.keyboard.type('a/b');
    expect(await page.locator('#capability-filter').inputValue()).toBe('a/b');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');

    // Keyboard only: Tab from the search to the "Off" state chip and press it.
    for (let presses = 0; presses < 20; presses += 1) {
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Off1') break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-pressed'))).toBe('false');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelectorAll('main li.row').length === 1);
    expect(await shownRows(page)).toEqual(['skill/review']);
    await chip(page, 'Show states', 'Any state');

    await page.getByRole('radio', { name: 'Plugin' }).check();
    const skills = page.locator('section.kind[data-kind="skill"]');
    await skills.locator('[data-group="owner"]').waitFor();
    const groupIds = (group: string) =>
      skills.locator(`[data-group="${group}"] li.row`).evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id));
    expect(await groupIds('project')).toEqual(['pdf']);
    expect(await groupIds('owner')).toEqual(['pdf', 'release-notes', 'review']);
    expect(await groupIds(`plugin:${PLUGIN_NAME}`)).toEqual(['lint']);
    expect(await skills.locator('[data-group] > h3 .group-name').allTextContents()).toEqual(['shop', PLUGIN_NAME]);
  });

  it('browses a marketplace, searches it and installs a plugin from it; a bad request is refused with a code', async () => {
    const { page, pluginUrl, home, open } = await start();
    const marketDir = gitRepo(path.join(testdir(), 'acme-market'), {
      '.claude-plugin': {
        'marketplace.json': JSON.stringify({
          name: 'acme-market',
          owner: { name: 'Acme' },
          plugins: [
            { name: PLUGIN_NAME, source: { source: 'url', url: pluginUrl }, description: 'Linting tools', keywords: ['lint'] },
            { name: 'docs-kit', source: './plugins/docs-kit', description: 'Helpers for writing docs' },
          ],
        }),
      },
      plugins: {
        'docs-kit': {
          'plugin.json': JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json', name: 'docs-kit' }),
        },
      },
    });
    await open({ view: 'plugins' });
    await page.getByText('No marketplace added yet.').waitFor();

    await page.getByLabel('Marketplace repository (URL)').fill(`file://${marketDir}`);
    await page.getByRole('button', { name: 'Add marketplace' }).click();
    await page.locator('li[data-marketplace="acme-market"]').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('Added marketplace acme-market: 2 plugins');
    // Browsing: with no words, every plugin of every marketplace.
    const hits = page.locator('li.hit');
    expect(await hits.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.hit))).toEqual([
      `${PLUGIN_NAME}@acme-market`,
      'docs-kit@acme-market',
    ]);

    await page.getByLabel('Search marketplaces').fill('lint');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('li.hit').length === 1);
    await page.getByRole('button', { name: `Install ${PLUGIN_NAME}@acme-market` }).click();
    await page.locator(`li.card[data-plugin="${PLUGIN_NAME}"]`).waitFor();
    await page.locator(`li.hit[data-hit="${PLUGIN_NAME}@acme-market"] .badge`, { hasText: 'installed' }).waitFor();
    // A marketplace's plugin lives in the clone of its repository under plugins/ (one clone per repository).
    const pluginsDir = path.join(home, 'plugins');
    expect(fs.readdirSync(pluginsDir).some((entry) => fs.existsSync(path.join(pluginsDir, entry, 'skills/lint/SKILL.md')))).toBe(true);

    // The routes refuse what they cannot take, with a stable code, and change nothing.
    const post = (body: unknown) =>
      page.evaluate(
        async ({ body, token }) => {
          const response = await fetch('/api/marketplaces', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: response.status, code: ((await response.json()) as { error?: { code?: string } }).error?.code };
        },
        { body, token: TOKEN },
      );
    expect(await post({ url: '' })).toEqual({ status: 400, code: expect.stringMatching(/^[A-Z_]+$/) });
    expect(await post({ url: `file://${marketDir}`, extra: true })).toEqual({ status: 400, code: expect.stringMatching(/^[A-Z_]+$/) });
    expect(await post({ url: `file://${marketDir}` })).toEqual({ status: 409, code: expect.stringMatching(/^[A-Z_]+$/) });
    const listed = await page.evaluate(async () => ((await (await fetch('/api/marketplaces')).json()) as unknown[]).length);
    expect(listed).toBe(1);
  });

  it('fits 375 px with the filters and groups by plugin there', async () => {
    const { page, project, open } = await start({ installPlugin: true, viewport: { width: 375, height: 812 } });
    await open({ project });
    await page.getByRole('radio', { name: 'Plugin' }).check();
    await page.locator(`[data-group="plugin:${PLUGIN_NAME}"]`).first().waitFor();
    await open({ project, view: 'plugins' });
    for (const view of ['capabilities', 'plugins']) {
      await open({ project, view });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${view} scrolls sideways`).toBeLessThanOrEqual(0);
    }
  });
});

/** Opens the capabilities view from another view; answers the time to its first rows on screen, with and without the server's reads. */
async function timeFirstRender(page: Page): Promise<{ total: number; render: number }> {
  await page.evaluate(() => {
    location.hash = 'inbox';
  });
  await page.locator('main .view-inbox').waitFor();
  return page.evaluate(
    () =>
      new Promise<{ total: number; render: number }>((done) => {
        performance.clearMarks();
        const main = document.querySelector('main') as HTMLElement;
        const start = performance.now();
        const observer = new MutationObserver(() => {
          if (main.querySelector('.view-capabilities li.row') === null) return;
          observer.disconnect();
          // Two frames: the second callback runs once the first frame with the rows was painted.
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              const end = performance.now();
              const read = performance.getEntriesByName('loadout:capabilities-read')[0]?.startTime ?? start;
              done({ total: end - start, render: end - read });
            }),
          );
        });
        observer.observe(main, { childList: true, subtree: true });
        location.hash = 'capabilities';
      }),
  );
}

/** Presses `key` in the search; answers the time from the keydown to the frame painted with the filtered rows. */
async function timeKeystroke(page: Page, key: string): Promise<number> {
  await page.evaluate(() => {
    const search = document.getElementById('capability-filter') as HTMLInputElement;
    const probe = window as unknown as { keystrokeMs: number | null };
    probe.keystrokeMs = null;
    let down = 0;
    search.addEventListener('keydown', () => (down = performance.now()), { once: true });
    search.addEventListener(
      'input',
      () => requestAnimationFrame(() => requestAnimationFrame(() => (probe.keystrokeMs = performance.now() - down))),
      { once: true },
    );
  });
  await page.keyboard.press(key);
  const handle = await page.waitForFunction(() => (window as unknown as { keystrokeMs: number | null }).keystrokeMs);
  return (await handle.jsonValue()) as number;
}

describe('the capabilities screen with 10,000 skills', { timeout: 600_000 }, () => {
  it('draws its first rows in at most 5× the time of 100 skills, and answers a filter keystroke within 100 ms (medians)', async () => {
    const figures: Record<string, { total: number[]; render: number[]; keystroke: number[]; shown: string }> = {};
    for (const count of [100, 10_000]) {
      const { page, open } = await start({ bulkSkills: count });
      // The server's first read of 10,000 skill folders on a busy machine is not what is measured.
      page.setDefaultTimeout(120_000);
      await open();
      await page.locator('main .view-capabilities[data-described="true"]').waitFor({ timeout: 120_000 });
      const runs = { total: [] as number[], render: [] as number[], keystroke: [] as number[], shown: '' };
      for (let run = 0; run < 5; run += 1) {
        const timing = await timeFirstRender(page);
        runs.total.push(timing.total);
        runs.render.push(timing.render);
      }
      await page.locator('main .view-capabilities[data-described="true"]').waitFor({ timeout: 120_000 });
      await page.locator('#capability-filter').focus();
      for (const key of ['b', 'u', 'l', 'k', '-', '0', '0', '0', '4', '2']) runs.keystroke.push(await timeKeystroke(page, key));
      // The filter found the one it names, and nothing else.
      await page.waitForFunction(() => document.querySelectorAll('main li.row').length === 1);
      runs.shown = (await page.locator('main li.row').getAttribute('data-id')) ?? '';
      figures[String(count)] = runs;
      await stop();
    }
    const small = figures['100'];
    const large = figures['10000'];
    if (small === undefined || large === undefined) throw new Error('both sizes must have run');
    const summary = {
      renderMedianMs: { 100: median(small.render), 10000: median(large.render) },
      totalMedianMs: { 100: median(small.total), 10000: median(large.total) },
      keystrokeMedianMs: { 100: median(small.keystroke), 10000: median(large.keystroke) },
      runs: figures,
    };
    fs.mkdirSync(FIGURES, { recursive: true });
    fs.writeFileSync(path.join(FIGURES, 'capabilities-10000.json'), `${JSON.stringify(summary, null, 2)}\n`);
    console.log(JSON.stringify({ ...summary, runs: undefined }));

    expect(small.shown).toBe('bulk-00042');
    expect(large.shown).toBe('bulk-00042');
    expect(summary.renderMedianMs[10000]).toBeLessThanOrEqual(5 * summary.renderMedianMs[100]);
    expect(summary.keystrokeMedianMs[10000]).toBeLessThanOrEqual(100);
  });
});

import fs from 'node:fs';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { launchChromium } from '../web/launchChromium.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { workspaceTree } from '../server/support.js';
import { HOSTILE_TOKEN, serveBuilt, stopBuiltServers } from './support.js';

// The capability screen under the hardening issue's rules: a project needs the token, the token
// dialog says only what is true, and a failed read is shown rather than dropped.

let browser: BrowserContext | null = null;
afterEach(async () => {
  await browser?.close().catch(() => undefined);
  browser = null;
  await stopBuiltServers();
  removeTestdirs();
});

async function openScreen(): Promise<{ page: Page; url: string; project: string }> {
  const home = testdir(workspaceTree());
  const project = testdir({
    '.agents': { skills: { notes: { 'SKILL.md': '---\nname: shop-notes\ndescription: Notes of the shop.\n---\nBody.\n' } } },
  });
  const server = await serveBuilt(home);
  browser = await launchChromium(testdir());
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(15_000);
  return { page, url: server.url, project };
}

const tokenDialog = (page: Page) => page.getByRole('dialog', { name: 'Server token' });

describe('the screen', () => {
  it('S2 the token dialog does not claim the printed address carries the token, and names the file', async () => {
    const { page, url } = await openScreen();
    await page.goto(url);
    const text = (await tokenDialog(page).textContent()) ?? '';
    expect(text).not.toContain('carries the token');
    expect(text).toContain('server-token');
    expect(text).toContain('never the token itself');
  });

  it('11.6 opening a project from the address asks for the token first, then shows the project', async () => {
    const { page, url, project } = await openScreen();
    await page.goto(`${url}/?project=${encodeURIComponent(project)}`);
    const dialog = tokenDialog(page);
    expect(await dialog.textContent()).toContain(`Opening the project ${project} needs the token`);
    await dialog.getByLabel('Token').fill(HOSTILE_TOKEN);
    await dialog.getByRole('button', { name: 'Use token' }).click();
    await page.locator('.row', { hasText: 'shop-notes' }).first().waitFor();
    expect(await page.locator('#project-input').inputValue()).toBe(fs.realpathSync(project));
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('S9 a failed unread count and a failed state read are shown, not dropped', async () => {
    const { page, url } = await openScreen();
    const refuse = {
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'INTERNAL', message: 'the database is gone' } }),
    };
    await page.route('**/api/notifications?*unread=true*', (route) => route.fulfill(refuse));
    await page.goto(`${url}/#token=${HOSTILE_TOKEN}`);
    await page.getByRole('alert').filter({ hasText: 'Could not count unread notifications' }).waitFor();

    await page.route('**/rpc', async (route) => {
      if ((route.request().postData() ?? '').includes('capability.state')) await route.fulfill(refuse);
      else await route.continue();
    });
    await page.evaluate("location.hash = 'plugins'");
    const alert = page.getByRole('alert').filter({ hasText: 'Could not read which capabilities are on' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('the database is gone');
    // The list itself still shows.
    await page.getByRole('heading', { name: 'Plugins' }).waitFor();
  });
});

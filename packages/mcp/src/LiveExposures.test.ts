import fs from 'node:fs';
import path from 'node:path';
import { dbModule } from '@loadout/db';
import { jobsModule } from '@loadout/jobs';
import { keptReadsModule } from '@loadout/kept-reads';
import { closeKernel, createKernel, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { pluginsModule } from '@loadout/plugins';
import { skillsModule } from '@loadout/skills';
import { stateModule } from '@loadout/state';
import { tasksModule } from '@loadout/tasks';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveExposures } from './LiveExposures.js';

const containers: DependencyContainer[] = [];
afterEach(() => {
  for (const container of containers.splice(0)) closeKernel(container);
  removeTestdirs();
});

const skill = (description: string) => `---\nname: notes\ndescription: ${description}\n---\nBody.\n`;

/** A workspace with one skill and a kernel that may place no watch at all: every document is checked by stat. */
function unwatched() {
  const home = testdir({ capabilities: { skills: { notes: { 'SKILL.md': skill('first words') } } } });
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    keptReadsModule({ watchBudget: 0 }),
    dbModule,
    pluginsModule,
    skillsModule,
    tasksModule,
    jobsModule,
    stateModule,
  ]);
  containers.push(container);
  return {
    file: path.join(home, 'capabilities/skills/notes/SKILL.md'),
    exposures: new LiveExposures(container.resolve(SessionLoader), 25),
  };
}

const description = async (exposures: LiveExposures) => (await exposures.current(null)).session.recordsOf('skill')[0]?.description;

describe('LiveExposures with no watch to rely on', () => {
  it('keeps the exposure while nothing changed, and sees an edit in place of the same size at the next call', async () => {
    const { file, exposures } = unwatched();
    const first = await exposures.current(null);
    expect(first.session.recordsOf('skill')[0]?.description).toBe('first words');
    // An edit within the same second as the first read, same size: only a stat of the file can tell.
    fs.writeFileSync(file, skill('other words'));
    expect(await description(exposures)).toBe('other words');
    // Once every change is older than a second (the age a stamp is trusted at), an unchanged
    // workspace reuses the exposure.
    await new Promise((done) => setTimeout(done, 1_100));
    const settled = await exposures.current(null);
    expect(await exposures.current(null)).toBe(settled);
    exposures.close();
  });

  it('tells whether an exposure still shows the workspace: not once a document changed', async () => {
    const { file, exposures } = unwatched();
    await new Promise((done) => setTimeout(done, 1_100));
    const first = await exposures.current(null);
    expect(await exposures.isCurrent(first)).toBe(true);
    fs.writeFileSync(file, skill('changed words'));
    expect(await exposures.isCurrent(first)).toBe(false);
    const second = await exposures.current(null);
    expect(second).not.toBe(first);
    expect(await exposures.isCurrent(first)).toBe(false);
    exposures.close();
  });

  it('gives calls that arrive together one exposure, read after all of them came', async () => {
    const { file, exposures } = unwatched();
    await exposures.current(null);
    fs.writeFileSync(file, skill('third words'));
    const [a, b] = await Promise.all([exposures.current(null), exposures.current(null)]);
    expect(a).toBe(b);
    expect(a.session.recordsOf('skill')[0]?.description).toBe('third words');
    exposures.close();
  });

  it('keeps a session a tool call holds open until the call lets go, though a newer one replaced it', async () => {
    const { file, exposures } = unwatched();
    const first = await exposures.current(null);
    const firstDisposed = vi.spyOn(first.session, 'dispose');
    const release = exposures.hold(first);
    fs.writeFileSync(file, skill('newer words'));
    const second = await exposures.current(null);
    expect(second.session.recordsOf('skill')[0]?.description).toBe('newer words');
    const secondDisposed = vi.spyOn(second.session, 'dispose');
    fs.writeFileSync(file, skill('newest words'));
    expect(await description(exposures)).toBe('newest words');
    await new Promise((done) => setImmediate(done));
    // Replaced and not held: let go at the next turn, as before. Held: kept.
    expect(secondDisposed).toHaveBeenCalledTimes(1);
    expect(firstDisposed).not.toHaveBeenCalled();
    release();
    expect(firstDisposed).toHaveBeenCalledTimes(1);
    release();
    expect(firstDisposed).toHaveBeenCalledTimes(1);
    exposures.close();
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { resolve, type Session, SessionLoader } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { TaskStore } from '@loadout/tasks';
import { afterEach, describe, expect, it } from 'vitest';
import { CapabilityStateService } from '../src/index.js';
import { capabilityMarkdown, closeContainers, openContainer, skillFolder, taskFolder, workspace } from '../src/testing/index.js';

const sessions: Session[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.dispose();
  closeContainers();
  removeTestdirs();
});

function fixture() {
  const ws = workspace({
    capabilities: {
      skills: { pdf: skillFolder('pdf', { ocr: true }), notes: skillFolder('notes') },
      affordances: { 'shell.md': capabilityMarkdown('shell') },
      tasks: { 'word-count': taskFolder('word-count') },
    },
    project: { skills: { notes: skillFolder('notes') } },
  });
  const container = openContainer(ws.places);
  const open = async (project: string | null): Promise<Session> => {
    const session = await container.resolve(SessionLoader).open({ project });
    sessions.push(session);
    return session;
  };
  return { ...ws, container, service: resolve(container, CapabilityStateService), open };
}

const ids = (session: Session, kind: string): string[] => session.recordsOf(kind).map((record) => record.id);

describe('sessions honour capability state', () => {
  it('show everything when nothing is stored', async () => {
    const { open, project } = fixture();
    const session = await open(project);
    expect(ids(session, 'skill')).toEqual(['notes', 'pdf']);
    expect(session.sections.get('skillsBlock')).toContain('- pdf:');
    expect(session.sections.get('affordanceBlock')).toContain('- shell:');
    expect(session.diagnostics.some((d) => d.code === 'CAPABILITIES_OFF')).toBe(false);
  });

  it('leave a capability that is off out of every list, block and lookup', async () => {
    const { open, service, project } = fixture();
    const result = await service.setCapabilityState({}, [
      { kind: 'skill', id: 'pdf', enabled: false },
      { kind: 'affordance', id: 'shell', enabled: false },
      { kind: 'task', id: 'word-count', enabled: false },
    ]);
    expect(result.errors).toEqual([]);
    for (const session of [await open(null), await open(project)]) {
      expect(ids(session, 'skill')).toEqual(['notes']);
      expect(session.find('skill', 'pdf')).toBeUndefined();
      expect(session.sections.get('skillsBlock')).not.toContain('pdf');
      expect(session.sections.get('affordanceBlock')).not.toContain('shell');
      expect(ids(session, 'affordance')).toEqual([]);
      const tasks = session.container.resolve<TaskStore>(TaskStore);
      expect(tasks.listTasks()).toEqual([]);
      expect(() => tasks.getTaskByDirName('word-count')).toThrow(expect.objectContaining({ code: 'TASK_NOT_FOUND' }));
      expect(JSON.stringify(session.toJSON().skills)).not.toContain('pdf');
      expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: 'CAPABILITIES_OFF', severity: 'info' }));
    }
  });

  it('bring a capability back in one project only when that project enables it', async () => {
    const { open, service, project, places } = fixture();
    await service.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enabled: false }]);
    const enabled = await service.setCapabilityState({ project }, [{ kind: 'skill', id: 'pdf', enabled: true }]);
    expect(enabled.errors).toEqual([]);
    expect(ids(await open(project), 'skill')).toEqual(['notes', 'pdf']);
    expect(ids(await open(null), 'skill')).toEqual(['notes']);
    const other = path.join(places.home, 'other');
    fs.mkdirSync(other);
    expect(ids(await open(other), 'skill')).toEqual(['notes']);
  });

  it('turn off every copy of an id: a shadowed copy never stands in for the winner', async () => {
    const { open, service, project } = fixture();
    const result = await service.setCapabilityState({ project }, [{ kind: 'skill', id: 'notes', enabled: false }]);
    expect(result.errors).toEqual([]);
    const session = await open(project);
    expect(ids(session, 'skill')).toEqual(['pdf']);
  });

  it('hand consumers the configured gates, so an inactive gate reads as off', async () => {
    const { open, service, project } = fixture();
    const result = await service.setCapabilityState({ project }, [{ kind: 'skill', id: 'pdf', gates: { ocr: false } }]);
    expect(result.warnings).toEqual(['skill/pdf is enabled but every gate is off (ocr): present but dead']);
    expect((await open(project)).find('skill', 'pdf')?.gates).toEqual({ ocr: false });
    expect((await open(null)).find('skill', 'pdf')?.gates).toEqual({ ocr: true });
  });

  it('still open when a config.json is broken, saying why the gates use their defaults', async () => {
    const { open, places } = fixture();
    fs.writeFileSync(path.join(places.capabilitiesDir, 'config.json'), '[1, 2');
    const session = await open(null);
    expect(session.find('skill', 'pdf')?.gates).toEqual({ ocr: true });
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: 'STATE_CONFIG_INVALID', severity: 'warning' }));
  });
});

import { describe, expect, it } from 'vitest';
import { assignToolNames, toolNameFor } from './toolName.js';

describe('toolNameFor', () => {
  it.each([
    ['deploy', 'deploy'],
    ['Build_All-2', 'Build_All-2'],
    ['a'.repeat(64), 'a'.repeat(64)],
  ])('keeps a folder name that already is a portable tool name: %s', (dirName, name) => {
    expect(toolNameFor(dirName)).toBe(name);
  });

  it.each([
    ['make report', /^make_report_[0-9a-f]{8}$/],
    ['café crème', /^cafe_creme_[0-9a-f]{8}$/],
    ['v1.2', /^v1_2_[0-9a-f]{8}$/],
    ['-lead', /^lead_[0-9a-f]{8}$/],
    ['日本語', /^task_[0-9a-f]{8}$/],
    ['a'.repeat(65), /^a{55}_[0-9a-f]{8}$/],
  ])('folds any other name and adds a hash of the folder name: %s', (dirName, pattern) => {
    const name = toolNameFor(dirName);
    expect(name).toMatch(pattern);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(toolNameFor(dirName)).toBe(name);
  });

  it('gives folder names that fold alike different names', () => {
    expect(toolNameFor('a b')).not.toBe(toolNameFor('a:b'));
  });
});

/** The owner's own tasks by folder name, as a session lists them. */
const owners = (...dirNames: string[]) => dirNames.map((dirName) => ({ dirName, plugin: null, level: 'global' }));

describe('assignToolNames', () => {
  it('names each task from its own folder name, whatever the others are', () => {
    const alone = assignToolNames(owners('make report')).get('make report');
    const withOthers = assignToolNames(owners('zzz', 'make report', 'make_report', 'a b')).get('make report');
    expect(withOthers).toBe(alone);
  });

  it('lengthens the hash of a folded name that equals another task’s plain name', () => {
    const folded = toolNameFor('x y');
    const names = assignToolNames(owners('x y', folded));
    expect(names.get(folded)).toBe(folded);
    expect(names.get('x y')).not.toBe(folded);
    expect(names.get('x y')).toMatch(/^x_y_[0-9a-f]{16}$/);
  });

  it("37 L2 keeps the owner's folded name when a plugin's folder is named like it: the plugin's gets the hash", () => {
    const ownerName = toolNameFor('make report');
    const names = assignToolNames([{ dirName: ownerName, plugin: 'squatter', level: 'global' }, ...owners('make report')]);
    expect(names.get('make report')).toBe(ownerName);
    expect(names.get(ownerName)).toMatch(new RegExp(`^${ownerName}_[0-9a-f]{8}$`));
  });

  it("37 L2 puts the project's own tasks after the owner's and before plugins'", () => {
    const folded = toolNameFor('a b');
    const project = { dirName: 'a b', plugin: null, level: 'project' };
    expect(assignToolNames([{ dirName: folded, plugin: 'p', level: 'global' }, project]).get('a b')).toBe(folded);
    expect(assignToolNames([...owners(folded), project]).get('a b')).toMatch(/^a_b_[0-9a-f]{16}$/);
  });
});

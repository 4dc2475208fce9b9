import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { freezeReads } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRecord } from './CommandRecord.js';
import { commandPrompt } from './commandPrompt.js';
import { commandKind } from './commandKind.js';
import { commandsModule } from './commandsModule.js';

afterEach(removeTestdirs);

async function session(home: string) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    commandsModule,
    { name: 'no plugins', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
  ]);
  freezeReads(container);
  return container.resolve(SessionLoader).open();
}

describe('commands', () => {
  it('reads commands/<name>.md by file name, with or without frontmatter', async () => {
    const home = testdir({
      capabilities: {
        commands: {
          'review-pr.md': '---\ndescription: Review a pull request\nargument-hint: [pr-number]\nmodel: opus\n---\nReview PR $1.\n',
          'plain.md': 'Summarise $ARGUMENTS.\n',
          'named.md': '---\nname: Pretty Name\ndescription: shown by its name\n---\nBody.\n',
          'notes.txt': 'ignored',
        },
      },
    });
    const s = await session(home);
    const commands = s.recordsOf<CommandRecord>('command');
    expect(commands.map((c) => [c.id, c.name, c.description, c.argumentHint, c.model])).toEqual([
      ['named', 'Pretty Name', 'shown by its name', null, null],
      ['plain', 'plain', '', null, null],
      ['review-pr', 'review-pr', 'Review a pull request', '[pr-number]', 'opus'],
    ]);
    expect(commands[2]).toStrictEqual({
      id: 'review-pr',
      name: 'review-pr',
      description: 'Review a pull request',
      path: `${home}/capabilities/commands/review-pr.md`,
      gates: {},
      argumentHint: '[pr-number]',
      model: 'opus',
      toolGrants: [],
      kind: 'command',
      level: 'global',
      plugin: null,
    });
    expect(s.diagnostics).toEqual([]);
  });

  it('names a folder of commands it does not read, and refuses a file name no runtime could type', async () => {
    const home = testdir({
      capabilities: { commands: { frontend: { 'component.md': 'Make one.\n' }, 'bad name!.md': 'x', 'ok.md': 'Fine.\n' } },
    });
    const s = await session(home);
    expect(s.recordsOf('command').map((c) => c.id)).toEqual(['ok']);
    expect(s.diagnostics.map((d) => d.code).sort()).toEqual(['COMMAND_FOLDER_NOT_READ', 'COMMAND_NAME_INVALID']);
  });
});

describe('commandPrompt', () => {
  it('a command whose allowed-tools grants tools may run (held like a skill with a grant); one without is text', async () => {
    const home = testdir({
      capabilities: {
        commands: {
          'commit.md': '---\ndescription: Commit\nallowed-tools: Bash(git add:*), Bash(git commit:*)\n---\n!`git status`\nCommit.\n',
          'listed.md': '---\nallowed-tools:\n  - Read\n  - Grep\n---\nLook.\n',
          'text.md': '---\ndescription: Just words\nallowed-tools: "  "\n---\nSay hi.\n',
        },
      },
    });
    const commands = (await session(home)).recordsOf<CommandRecord>('command');
    expect(commands.map((c) => [c.id, c.toolGrants, commandKind.mayRun?.(c)])).toEqual([
      ['commit', ['Bash(git add:*), Bash(git commit:*)'], true],
      ['listed', ['Read', 'Grep'], true],
      ['text', [], false],
    ]);
    const root = { dir: `${home}/capabilities`, level: 'global' as const, plugin: null, writable: true };
    expect(commandKind.runnable?.(commands[0] as CommandRecord, root)).toEqual({
      files: [],
      sources: [`${home}/capabilities/commands/commit.md`],
      definition: { toolGrants: ['Bash(git add:*), Bash(git commit:*)'] },
      summary: 'grants tools Bash(git add:*), Bash(git commit:*)',
    });
    expect(commandKind.runnable?.(commands[2] as CommandRecord, root)).toBeNull();
  });

  it('puts what was passed in for $ARGUMENTS and $1 … $9, and leaves every other text as written', () => {
    expect(commandPrompt('Fix $1 then $2; all: $ARGUMENTS; none: $3; keep $10 and !`ls` and $HOME', ' 42  high ')).toBe(
      'Fix 42 then high; all:  42  high ; none: ; keep $10 and !`ls` and $HOME',
    );
    expect(commandPrompt('No placeholders.', 'x')).toBe('No placeholders.');
  });
});

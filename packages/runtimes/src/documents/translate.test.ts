import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { geminiCliDocuments } from '../adapters/geminiCliDocuments.js';
import type { DocumentFolders, DocumentToTranslate } from './RuntimeDocumentSupport.js';
import { claudeCodeDocument, withFrontmatterName } from './translate.js';

const command = (text: string, plugin: string | null = null): DocumentToTranslate => ({
  id: 'deploy',
  plugin,
  text,
  description: 'Deploy',
});
const gemini = geminiCliDocuments.command as DocumentFolders;

describe('a Claude Code Markdown command as a Gemini CLI TOML command', () => {
  it('keeps the prompt and description, $ARGUMENTS as {{args}}, a plugin command in a folder of its name', () => {
    const translated = gemini.translate(
      command('---\ndescription: "Deploy: the app"\nargument-hint: [env]\n---\nDeploy to $ARGUMENTS.\nThen "report" it.\n', 'ops'),
    );
    expect(translated).toEqual({ file: 'ops/deploy.toml', text: expect.any(String) });
    const toml = parseToml((translated as { text: string }).text);
    expect(toml).toEqual({ description: 'Deploy: the app', prompt: 'Deploy to {{args}}.\nThen "report" it.\n' });
  });

  it('falls back to the description Loadout read when the frontmatter spreads it over lines', () => {
    const translated = gemini.translate(command('---\ndescription: >\n  long\n---\nBody.\n'));
    expect(parseToml((translated as { text: string }).text)).toEqual({ description: 'Deploy', prompt: 'Body.\n' });
  });

  it.each([
    ['numbered arguments', 'Ship $1 to $2.\n', /numbered arguments/],
    ['text Gemini would run', 'Look at !{ls} and @{README.md}.\n', /would run as a shell command/],
    ['shell lines run before the prompt', '!`git status`\nCommit.\n', /runs shell commands/],
  ])('skips a command with %s, saying why', (_case, body, reason) => {
    expect(gemini.translate(command(`---\ndescription: x\n---\n${body}`))).toEqual({ skip: expect.stringMatching(reason) });
  });

  it("writes into ~/.gemini/commands and the project's .gemini/commands", () => {
    const env = { home: '/home/me', variables: {} } as unknown as Parameters<DocumentFolders['folders']>[1];
    expect(gemini.folders('/work/app', env)).toEqual({ user: '/home/me/.gemini/commands', project: '/work/app/.gemini/commands' });
    expect(typeof geminiCliDocuments.hook).toBe('string');
  });
});

describe("Claude Code's names for a plugin's documents", () => {
  it("sets an agent's frontmatter name to plugin:name, every other byte as written; a command keeps its bytes", () => {
    const agent = '---\r\nname: reviewer\r\ndescription: Reviews.\r\n---\r\nBody name: reviewer\r\n';
    expect(claudeCodeDocument('agent', { id: 'reviewer', plugin: 'kit', text: agent, description: '' })).toEqual({
      file: 'kit/reviewer.md',
      text: '---\r\nname: "kit:reviewer"\r\ndescription: Reviews.\r\n---\r\nBody name: reviewer\r\n',
      listedAs: 'kit:reviewer',
    });
    expect(claudeCodeDocument('command', { id: 'ship', plugin: 'kit', text: 'Ship.\n', description: '' })).toEqual({
      file: 'kit/ship.md',
      text: 'Ship.\n',
    });
    expect(claudeCodeDocument('agent', { id: 'mine', plugin: null, text: agent, description: '' })).toEqual({
      file: 'mine.md',
      text: agent,
    });
  });

  it('names a copied plugin agent by its bare name for a client that drops a name holding a colon', () => {
    const agent = '---\nname: reviewer\ndescription: Reviews.\n---\nBody.\n';
    expect(claudeCodeDocument('agent', { id: 'reviewer', plugin: 'kit', text: agent, description: '', copiedAgentNames: 'bare' })).toEqual({
      file: 'kit/reviewer.md',
      text: '---\nname: "reviewer"\ndescription: Reviews.\n---\nBody.\n',
      listedAs: 'reviewer',
    });
  });

  it('adds the name when the frontmatter has none, and a frontmatter when there is none', () => {
    expect(withFrontmatterName('---\ndescription: d\n---\nB\n', 'kit:a')).toBe('---\nname: "kit:a"\ndescription: d\n---\nB\n');
    expect(withFrontmatterName('Just text.\n', 'kit:a')).toBe('---\nname: "kit:a"\n---\nJust text.\n');
  });
});

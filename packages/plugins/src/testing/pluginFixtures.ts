import path from 'node:path';
import type { TreeDescription } from '@loadout/files/testing';
import { gitRepo, skillMarkdown } from '@loadout/kernel/testing';

/** The `$schema` of an Agent Plugins 1.0.0 manifest. */
export const AGENT_PLUGINS_1_0 = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';

/** A root `plugin.json` (Agent Plugins 1.0.0) naming the plugin. */
export function agentPluginsManifest(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ $schema: AGENT_PLUGINS_1_0, name, version: '1.0.0', ...extra });
}

/** One capability of each kind, as a plugin repository would hold them. */
export function pluginTree(prefix: string, manifestName: string | null = `${prefix}-tools`): TreeDescription {
  return {
    ...(manifestName === null ? {} : { 'plugin.json': agentPluginsManifest(manifestName) }),
    'README.md': `# ${prefix} tools\n`,
    skills: { [`${prefix}-reading`]: { 'SKILL.md': skillMarkdown({ name: `${prefix}-reading`, description: `Read ${prefix} files` }) } },
    affordances: { [`${prefix}-viewer.md`]: `---\nname: ${prefix}-viewer\ndescription: View ${prefix} files\n---\nOpen the viewer.\n` },
    notifications: {
      [`${prefix}-events.json`]: JSON.stringify({
        name: `${prefix}-events`,
        notifications: [{ id: `${prefix}.done`, title: `${prefix} done`, severity: 'info' }],
      }),
    },
    servers: { [`${prefix}-server.json`]: JSON.stringify({ name: `${prefix}-server`, command: 'node', args: ['server.mjs'], env: {} }) },
    tasks: {
      [`${prefix}-count`]: {
        'TASK.md': `---\nname: ${prefix} count\ndescription: Count ${prefix} files\nimplementation: run.sh\n---\nCounts.\n`,
        'run.sh': 'echo 1\n',
      },
    },
  };
}

/** A plugin repository with one capability of each kind, committed on `main`. */
export function pluginRepo(parent: string, repoName: string, prefix: string, manifestName?: string | null): string {
  return gitRepo(path.join(parent, repoName), pluginTree(prefix, manifestName));
}

/** The parts of `loadout session --json` the plugin tests read. */
export interface SessionJson {
  roots: { plugin: string | null }[];
  skills: { id: string; plugin: string | null; description: string; path: string }[];
  affordances: { id: string; plugin: string | null }[];
  notifications: { id: string; plugin: string | null }[];
  servers: { id: string; plugin: string | null }[];
  tasks: { dirName: string; plugin: string | null }[];
  agents: { id: string; plugin: string | null; path: string }[];
  commands: { id: string; plugin: string | null; path: string }[];
  hooks: { id: string; plugin: string | null; event: string; command: string | null; path: string }[];
  skillsBlock: string;
  affordanceBlock: string;
  diagnostics: { code: string; message: string; severity: string; path?: string; subjects?: string[] }[];
}

/**
 * A Claude Code marketplace repository of `count` plugins, each a folder `plugins/p<n>` with a
 * manifest, one skill and `fillerBytes` of reference text (so the repository has a size worth
 * measuring), listed in `.claude-plugin/marketplace.json` under the name `market`.
 */
export function manyPluginsMarketplace(dir: string, count: number, fillerBytes = 4096): string {
  const plugins: Record<string, TreeDescription> = {};
  for (let n = 0; n < count; n++) {
    const name = `p${n}`;
    plugins[name] = {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name, description: `Plugin ${n}` }) },
      skills: {
        [`${name}-skill`]: {
          'SKILL.md': skillMarkdown({ name: `${name}-skill`, description: `The skill of plugin ${n}` }),
          'reference.md': fillerText(name, fillerBytes),
        },
      },
    };
  }
  const entries = Object.keys(plugins).map((name) => ({ name, source: `./plugins/${name}`, description: `Plugin ${name}` }));
  return gitRepo(dir, {
    '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'market', owner: { name: 'Test' }, plugins: entries }) },
    'README.md': '# a marketplace\n',
    plugins,
  });
}

/** Text that compresses like prose rather than like one repeated byte. */
function fillerText(seed: string, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `${seed} reference line ${n}: ${((n * 2654435761) % 4294967296).toString(36)} ${(n * 97).toString(16)}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

/**
 * A repository shaped like openai/skills: no manifest, no marketplace, its skills in collections
 * under `skills/` that no plugin layout reads (`skills/.curated/<name>`, `skills/.experimental/<name>`,
 * a `skills/.system` one too), and a README at the root.
 */
export function skillCollectionsRepo(dir: string, collections: Readonly<Record<string, readonly string[]>>): string {
  const skills: Record<string, TreeDescription> = {};
  for (const [collection, names] of Object.entries(collections)) {
    skills[collection] = Object.fromEntries(
      names.map((name) => [name, { 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill of ${collection}` }) }]),
    );
  }
  return gitRepo(dir, { 'README.md': '# skills\n', skills });
}

/**
 * A repository shaped like wshobson/agents: a Claude Code marketplace whose plugins are its folders
 * (`plugins/<name>` with agents, commands and skills, no manifest of their own), nothing loadable
 * at the root: installed as one plugin, it loads nothing.
 */
export function agentsMarketplaceRepo(dir: string, plugins: readonly string[]): string {
  const tree: Record<string, TreeDescription> = {};
  for (const name of plugins) {
    tree[name] = {
      agents: { [`${name}-expert.md`]: `---\nname: ${name}-expert\ndescription: An expert in ${name}\n---\nYou know ${name}.\n` },
      commands: { [`${name}-check.md`]: `---\ndescription: Check ${name}\n---\nCheck the ${name} code.\n` },
      skills: { [`${name}-patterns`]: { 'SKILL.md': skillMarkdown({ name: `${name}-patterns`, description: `Patterns of ${name}` }) } },
    };
  }
  const entries = plugins.map((name) => ({ name, source: `./plugins/${name}`, description: `The ${name} plugin` }));
  return gitRepo(dir, {
    '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'agents-market', owner: { name: 'Test' }, plugins: entries }) },
    'README.md': '# agents\n',
    docs: { 'usage.md': '# usage\n' },
    plugins: tree,
  });
}

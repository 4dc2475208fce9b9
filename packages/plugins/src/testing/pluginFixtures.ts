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
  skills: { id: string; plugin: string | null; description: string }[];
  affordances: { id: string; plugin: string | null }[];
  notifications: { id: string; plugin: string | null }[];
  servers: { id: string; plugin: string | null }[];
  tasks: { dirName: string; plugin: string | null }[];
  skillsBlock: string;
  affordanceBlock: string;
  diagnostics: { code: string; message: string; severity: string; path?: string; subjects?: string[] }[];
}

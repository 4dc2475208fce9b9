import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { freezeReads } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRecord } from './AgentRecord.js';
import { agentsModule } from './agentsModule.js';

afterEach(removeTestdirs);

async function session(home: string, project?: string) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    agentsModule,
    { name: 'no plugins', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
  ]);
  freezeReads(container);
  return container.resolve(SessionLoader).open(project === undefined ? {} : { project });
}

const reviewer =
  '---\nname: code-reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep, Glob\nmodel: sonnet\ncolor: blue\n---\nYou review code.\n';

describe('agents', () => {
  it('reads agents/<file>.md by their frontmatter name, with tools and model', async () => {
    const home = testdir({ capabilities: { agents: { 'reviewer.md': reviewer, 'notes.txt': 'not an agent', folder: {} } } });
    const s = await session(home);
    expect(s.recordsOf<AgentRecord>('agent')).toStrictEqual([
      {
        id: 'code-reviewer',
        name: 'code-reviewer',
        description: 'Reviews a change for bugs',
        path: `${home}/capabilities/agents/reviewer.md`,
        gates: {},
        tools: ['Read', 'Grep', 'Glob'],
        model: 'sonnet',
        kind: 'agent',
        level: 'global',
        plugin: null,
      },
    ]);
    expect(s.toJSON().agents).toHaveLength(1);
    expect(s.diagnostics).toEqual([]);
  });

  it('takes tools written as a YAML list, and warns about a missing name or description while still loading it', async () => {
    const home = testdir({
      capabilities: { agents: { 'helper.md': '---\ntools:\n  - Read\n  - Bash\n---\nHelp.\n' } },
    });
    const s = await session(home);
    expect(s.recordsOf<AgentRecord>('agent').map((agent) => [agent.id, agent.tools, agent.model])).toEqual([
      ['helper', ['Read', 'Bash'], null],
    ]);
    expect(s.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['AGENT_FIELDS_MISSING', 'agents/helper.md: has no name and no description (runtimes that load subagents need both)'],
    ]);
  });

  it('a project agent shadows the owner’s of the same name, and the set-aside copy is reported', async () => {
    const home = testdir({
      capabilities: { agents: { 'reviewer.md': reviewer } },
      project: { '.agents': { agents: { 'mine.md': reviewer.replace('Reviews a change for bugs', 'Project reviewer') } } },
    });
    const s = await session(home, `${home}/project`);
    expect(s.recordsOf('agent').map((agent) => [agent.id, agent.level, agent.description])).toEqual([
      ['code-reviewer', 'project', 'Project reviewer'],
    ]);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['SHADOWED']);
  });

  it('frontmatter fenced as code is refused with a diagnostic, never run, and the next agent still loads', async () => {
    const home = testdir({
      capabilities: { agents: { 'a.md': '---js\n{ name: require("fs") }\n---\n', 'b.md': reviewer } },
    });
    const s = await session(home);
    expect(s.recordsOf('agent').map((agent) => agent.id)).toEqual(['code-reviewer']);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['FRONTMATTER_ENGINE_REFUSED']);
  });
});

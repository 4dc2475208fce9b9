import type { ClientVersions, CompiledInNames } from '../RuntimeAdapter.js';

/**
 * Every name Claude Code 2.1.197 lists on a fresh home with no skills (`commands[]` of the SDK
 * `initialize` answer): its bundled skills and built-in commands. A skill of one of these names is
 * listed beside it. The end-to-end tests ask the pinned client again and fail when this list drifts.
 */
export const CLAUDE_CODE_COMPILED_IN: CompiledInNames = {
  version: '2.1.197',
  names: [
    'batch',
    'claude-api',
    'clear',
    'code-review',
    'compact',
    'config',
    'context',
    'debug',
    'deep-research',
    'design-sync',
    'fewer-permission-prompts',
    'goal',
    'heapdump',
    'init',
    'insights',
    'loop',
    'reload-skills',
    'review',
    'run',
    'run-skill-generator',
    'security-review',
    'simplify',
    'team-onboarding',
    'update-config',
    'usage',
    'verify',
  ],
};

/** The names Claude Code 2.1.332 lists on a fresh home that 2.1.197 did not (23). */
const ADDED_IN_2_1_332 = [
  '__remote-workflow',
  'agents',
  'auto-mode-setup',
  'autocompact',
  'color',
  'dataviz',
  'design',
  'design-consent',
  'design-revoke',
  'doctor',
  'effort',
  'fast',
  'focus',
  'list-agents',
  'mcp',
  'model',
  'output-style',
  'plugin-authoring',
  'recap',
  'reload-plugins',
  'rename',
  'workflow-authoring',
  'workflow-launch-exec',
] as const;

/**
 * The names Claude Code 2.1.332 lists on a fresh home (48: 2.1.197's without `review`, and 23 new).
 * A user or project skill named like one of them replaces it, and of two skills with one name only
 * the first by precedence is listed. Read from the pinned client, checked by the end-to-end tests.
 */
export const CLAUDE_CODE_2_1_332_COMPILED_IN: CompiledInNames = {
  version: '2.1.332',
  names: [...CLAUDE_CODE_COMPILED_IN.names.filter((name) => name !== 'review'), ...ADDED_IN_2_1_332].sort(),
};

/**
 * The Claude Code versions Loadout has measured, oldest first. 2.1.197 lists every copy of a name
 * (a user skill beside the built-in of its name) and a plugin's skill by its bare name; 2.1.332
 * lists the first copy only, lets a user or project skill replace a built-in, lists a plugin's
 * skill as `plugin:skill`, and drops an agent file whose name holds a colon (so a copied plugin
 * agent keeps its bare name there).
 */
export const CLAUDE_CODE_VERSIONS: ClientVersions = {
  command: 'claude',
  versions: [
    {
      version: '2.1.197',
      compiledIn: CLAUDE_CODE_COMPILED_IN,
      sameName: 'listed-first-runs',
      skillReplacesBuiltIn: false,
      pluginSkillNames: 'bare',
      copiedAgentNames: 'plugin-prefixed',
    },
    {
      version: '2.1.332',
      compiledIn: CLAUDE_CODE_2_1_332_COMPILED_IN,
      sameName: 'first-wins',
      skillReplacesBuiltIn: true,
      pluginSkillNames: 'namespaced',
      // An agent file whose `name` holds a colon is not listed at all (measured: `refused:lone` dropped, `refused-lone` and `lone` listed).
      copiedAgentNames: 'bare',
    },
  ],
};

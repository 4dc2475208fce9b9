// The words the capabilities view uses for kinds and for why a capability is on or off, and the
// methods that list and move the kinds that move between levels.

export const KIND_LABELS = {
  skill: 'Skills',
  affordance: 'Affordances',
  notification: 'Notification catalogues',
  server: 'MCP servers',
  task: 'Tasks',
  agent: 'Subagents',
  command: 'Commands',
  hook: 'Hooks',
};

/** A kind's plural heading, also for kinds a plugin adds that this page does not know. */
export function kindLabel(kind) {
  return KIND_LABELS[kind] ?? `${kind[0].toUpperCase()}${kind.slice(1)}s`;
}

/**
 * The RPC that moves each movable kind between levels.
 * @type {Readonly<Record<string, 'skills.transfer' | 'mcp.transfer'>>}
 */
export const TRANSFER_METHOD = { skill: 'skills.transfer', server: 'mcp.transfer' };
/**
 * The RPC that lists every record of a movable kind, descriptions included, on or off.
 * @type {Readonly<Record<string, 'skills.list' | 'mcp.list'>>}
 */
export const LIST_METHOD = { skill: 'skills.list', server: 'mcp.list' };

/** Why a capability is on or off, in the owner's words, by the substrate that decided it. */
export const DECIDED_BY = {
  'declared-default': 'by default',
  'global-default': 'set for every project',
  'project-override': 'set for this project',
  'plugin-disabled': 'its plugin is disabled',
  'plugin-not-installed': 'its plugin is not installed',
  'project-config': "this project's config.json",
  'global-config': "the owner's config.json",
  'untrusted-project': 'held: the project is not trusted',
  'unapproved-plugin': 'held: not approved',
};

/** `decidedBy` in words, or as it is when this page does not know it. */
export function decidedBy(value) {
  return DECIDED_BY[value] ?? value;
}

/** What holds a capability that is switched on, in words (its `held` text names the command that lifts it). */
export function heldReason(value) {
  if (value === 'unapproved-plugin') return 'its plugin is not approved';
  if (value === 'untrusted-project') return 'the project is not trusted';
  return decidedBy(value);
}

import type { RuntimeAdapter } from '../RuntimeAdapter.js';
import { qoderHome, qoderMcpSupport } from '../mcp/runtimeMcpSupports.js';

/**
 * Qoder CLI. Loadout writes only its MCP servers, verified with `@qoder-ai/qodercli` 1.1.52
 * (`qodercli mcp list`); no skill folder of it is known to Loadout, so it takes no skills.
 */
export const qoderCliAdapter: RuntimeAdapter = {
  name: 'qoder-cli',
  verified: false,
  verifiedOn: null,
  sameName: 'unverified',
  sources: ['@qoder-ai/qodercli 1.1.52'],
  presence: (env) => ({ commands: ['qodercli'], homes: [qoderHome(env)] }),
  discoveryRoots: () => [],
  refuses: () => 'Loadout knows no skill folder Qoder CLI reads',
  mcp: qoderMcpSupport,
};

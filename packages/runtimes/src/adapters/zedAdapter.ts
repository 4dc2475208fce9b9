import type { RuntimeAdapter } from '../RuntimeAdapter.js';
import { zedConfigDir, zedMcpSupport } from '../mcp/zedMcpSupport.js';

/**
 * Zed (the editor's agent). Loadout writes only its MCP servers ("context servers"); Zed reads no
 * skill folder Loadout knows of, so it has no discovery roots and takes no skills. Detected by its
 * command (`zed`, or `zeditor` as some Linux packages name it) or its config folder. See
 * docs/runtimes.md.
 */
export const zedAdapter: RuntimeAdapter = {
  name: 'zed',
  verified: false,
  verifiedOn: null,
  sameName: 'unverified',
  sources: ['https://zed.dev/docs/ai/mcp', 'https://zed.dev/docs/configuring-zed'],
  presence: (env) => ({ commands: ['zed', 'zeditor'], homes: [zedConfigDir(env)] }),
  discoveryRoots: () => [],
  refuses: () => 'Zed reads no skill folder Loadout knows of',
  mcp: zedMcpSupport,
};

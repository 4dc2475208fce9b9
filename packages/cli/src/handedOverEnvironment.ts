/**
 * Variables the `loadout` command (scripts/install-bin.sh's wrapper) hands to the command line
 * under another name, so that Node does not act on them as this process starts, and which the
 * command line puts back before it starts anything, so every program it starts (an MCP server
 * through `loadout mcp run`, an agent client asked its version) gets them as the user set them.
 *
 * NODE_EXTRA_CA_CERTS: Node reads it once, as it starts (verified on Node 20.20, 22.23 and 24.22:
 * put into process.env later, the process itself still refuses a server signed by that authority,
 * and a child started after it trusts it). Node 20 loads the whole bundle then, ~40–60 ms of every
 * start on a 2-core VM, even when the process makes no TLS connection; Loadout's own process makes
 * none (git, which does, is a program of its own with its own certificate settings), so only its
 * children need the variable. Should Loadout itself ever speak TLS, this hand-over must go.
 */
export const HANDED_OVER: Readonly<Record<string, string>> = {
  LOADOUT_NODE_EXTRA_CA_CERTS: 'NODE_EXTRA_CA_CERTS',
};

/** Puts each handed-over variable back under its own name and removes the name it came under. */
export function takeBackHandedOver(env: NodeJS.ProcessEnv): void {
  for (const [carrier, name] of Object.entries(HANDED_OVER)) {
    const value = env[carrier];
    if (value === undefined) continue;
    delete env[carrier];
    // The user's own setting wins, should both reach the process.
    env[name] ??= value;
  }
}

// What the actions of every command but `loadout session` use of the packages the app loads as
// later modules (runtimes, MCP): loaded with them (CliContext.load), never by a session.
export { findProjectFolder, serveMcpOverStdio } from '@loadout/mcp';
export { explainSkill, RuntimeApplier, RuntimePlanner } from '@loadout/runtimes';

import { type Resolved, resolveDependencies } from '@loadout/api';
import { JobScheduler } from '@loadout/jobs';
import { SessionLoader } from '@loadout/kernel';
import { CapabilityStateService } from '@loadout/state';
import { UsageRecorder } from '@loadout/usage';
import type { DependencyContainer } from 'tsyringe';

/**
 * What MCP needs of the app, declared once: the sessions it exposes, the scheduler a tool call
 * runs through, the switches that say why a tool is off, and the usage ledger each read and call is
 * reported to. Resolved when the face is built
 * (`/mcp`'s routes declare them; `loadout mcp` resolves them before it reads a message), so an app
 * without one fails at start naming who needed what, not at the first call.
 */
export const MCP_SERVICES = { sessions: SessionLoader, jobs: JobScheduler, state: CapabilityStateService, usage: UsageRecorder } as const;

export type McpServices = Resolved<typeof MCP_SERVICES>;

/**
 * The services of {@link MCP_SERVICES} from `container`, for `who` (named in the error).
 *
 * @throws WiringError when one is not registered
 */
export function resolveMcpServices(container: DependencyContainer, who: string): McpServices {
  return resolveDependencies(container, who, MCP_SERVICES) as unknown as McpServices;
}

import { defineRpcMethod, type RpcMethod } from '@loadout/api';
import { z } from 'zod';
import { CapabilityStateService } from './CapabilityStateService.js';
import { DesiredCapabilitiesSchema } from './DesiredCapability.js';

const project = z.string().min(1).max(4096).nullable().optional();
const deps = { state: CapabilityStateService };
const SetParams = z.strictObject({ project, capabilities: DesiredCapabilitiesSchema });
/** What `capability.set` takes, as a client writes it. */
export type SetCapabilityStateParams = z.input<typeof SetParams>;

/**
 * `capability.state { project? }` answers `{ capabilities }`, one entry per capability with the
 * substrate that decided it; `capability.set { project?, capabilities: [{ kind, id, enabled?,
 * gates? }] }` answers the writer's `{ capabilities, warnings, errors }` (this package). The
 * same schema checks desired states here and on the command line.
 */
export const stateRpcMethods: readonly RpcMethod[] = [
  defineRpcMethod({
    name: 'capability.state',
    params: z.strictObject({ project }),
    deps,
    handler: async ({ project: folder }, { state }) => ({ capabilities: await state.resolveCapabilityState({ project: folder ?? null }) }),
  }),
  defineRpcMethod({
    name: 'capability.set',
    params: SetParams,
    deps,
    handler: ({ project: folder, capabilities }, { state }) => state.setCapabilityState({ project: folder ?? null }, capabilities),
  }),
];

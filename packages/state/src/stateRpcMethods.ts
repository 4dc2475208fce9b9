import { defineRpcMethod, type RpcMethod } from '@loadout/api';
import { resolve } from '@loadout/kernel';
import { z } from 'zod';
import { CapabilityStateService } from './CapabilityStateService.js';
import { DesiredCapabilitiesSchema } from './DesiredCapability.js';

const project = z.string().min(1).max(4096).nullable().optional();

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
    handler: async ({ project: folder }, context) => ({
      capabilities: await resolve(context.container, CapabilityStateService).resolveCapabilityState({ project: folder ?? null }),
    }),
  }),
  defineRpcMethod({
    name: 'capability.set',
    params: z.strictObject({ project, capabilities: DesiredCapabilitiesSchema }),
    handler: ({ project: folder, capabilities }, context) =>
      resolve(context.container, CapabilityStateService).setCapabilityState({ project: folder ?? null }, capabilities),
  }),
];

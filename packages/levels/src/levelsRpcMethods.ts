import { defineRpcMethod, type RpcMethod } from '@loadout/api';
import { z } from 'zod';
import { CapabilityLevels } from './CapabilityLevels.js';
import type { TransferableKind } from './TransferRequest.js';

/**
 * `{ id, from, to }`, each end `{ level, projectPath? }`. Only the object shape is checked here;
 * the mover checks the ends itself, so a project end without a path answers with its own code,
 * `CAPABILITY_INVALID`, the same through the command line and through RPC.
 */
const transferParams = z.strictObject({ id: z.unknown(), from: z.unknown(), to: z.unknown() });

function transferMethod(name: string, kind: TransferableKind): RpcMethod {
  return defineRpcMethod({
    name,
    params: transferParams,
    deps: { levels: CapabilityLevels },
    handler: (params, { levels }) => levels.transfer({ kind, ...params }),
  });
}

/** `skills.transfer`, `mcp.transfer`, `agents.transfer`, `commands.transfer`: move an owner's document between levels (packages/levels). */
export const levelsRpcMethods: readonly RpcMethod[] = [
  transferMethod('skills.transfer', 'skill'),
  transferMethod('mcp.transfer', 'server'),
  transferMethod('agents.transfer', 'agent'),
  transferMethod('commands.transfer', 'command'),
];

import { defineRpcMethod, projectPath, type RpcContext, type RpcMethod } from '@loadout/api';
import { type CapabilityRecord, SessionLoader } from '@loadout/kernel';
import { z } from 'zod';

const listParams = z.strictObject({ project: projectPath.nullable().optional() });

/** A record as `*.list` reports it: whether it is in the session, whatever its root. */
export type ListedCapability = CapabilityRecord & { readonly active: boolean };

/**
 * Every record of `kind` in every root a session for `project` could read (the owner's, the
 * project's, every installed plugin's, enabled or not), shadowed and switched-off ones included,
 * each marked `active` when the session has it.
 */
async function listKind(kind: string, project: string | null | undefined, context: RpcContext): Promise<ListedCapability[]> {
  const session = await context.openSession(project ?? null);
  const loader = context.container.resolve(SessionLoader);
  const scan = loader.scanRoots(loader.buildRoots(session.project, { includeDisabled: true }));
  const active = new Set(session.recordsOf(kind).map((record) => record.path));
  return (scan.records.get(kind) ?? []).map((record) => ({ ...record, active: active.has(record.path) }));
}

async function activeKind(kind: string, project: string | null | undefined, context: RpcContext): Promise<readonly CapabilityRecord[]> {
  const session = await context.openSession(project ?? null);
  return session.recordsOf(kind);
}

/** `skills.list`, `skills.active`, `mcp.list`, `mcp.active`. */
export const capabilityRpcMethods: readonly RpcMethod[] = [
  defineRpcMethod({ name: 'skills.list', params: listParams, handler: ({ project }, context) => listKind('skill', project, context) }),
  defineRpcMethod({ name: 'skills.active', params: listParams, handler: ({ project }, context) => activeKind('skill', project, context) }),
  defineRpcMethod({ name: 'mcp.list', params: listParams, handler: ({ project }, context) => listKind('server', project, context) }),
  defineRpcMethod({ name: 'mcp.active', params: listParams, handler: ({ project }, context) => activeKind('server', project, context) }),
];

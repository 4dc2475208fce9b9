import { defineRpcMethod, projectPath, type RpcMethod } from '@loadout/api';
import { SessionLoader } from '@loadout/kernel';
import { z } from 'zod';

const listParams = z.strictObject({ project: projectPath.nullable().optional() });

/**
 * `<area>.list`: every copy of the kind in every root a session for `project` could read (the
 * owner's, the project's, every installed plugin's, enabled or not), each with `on` and
 * `shadowedBy`. `<area>.active`: the session's records of the kind, the ones that are on.
 */
function listMethods(area: string, kind: string): RpcMethod[] {
  return [
    defineRpcMethod({
      name: `${area}.list`,
      params: listParams,
      deps: { loader: SessionLoader },
      handler: ({ project }, { loader }) => loader.listRecords(kind, project ?? null, { includeDisabled: true }),
    }),
    defineRpcMethod({
      name: `${area}.active`,
      params: listParams,
      handler: async ({ project }, _deps, context) => (await context.openSession(project ?? null)).recordsOf(kind),
    }),
  ];
}

/** `skills.list`, `skills.active`, `mcp.list`, `mcp.active`, and the same of `agents`, `commands` and `hooks`. */
export const capabilityRpcMethods: readonly RpcMethod[] = [
  ...listMethods('skills', 'skill'),
  ...listMethods('mcp', 'server'),
  ...listMethods('agents', 'agent'),
  ...listMethods('commands', 'command'),
  ...listMethods('hooks', 'hook'),
];

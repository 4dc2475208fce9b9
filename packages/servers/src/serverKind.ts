import path from 'node:path';
import {
  type CapabilityKind,
  declaredGates,
  DocumentRefusedError,
  type EntryScan,
  type KindFolderEntry,
  readJsonCapability,
  redactCredentials,
} from '@loadout/kernel';
import { SERVER_ID, serverDefinitionShape, type ServerRecord } from './ServerDefinition.js';

/** The MCP server kind: `servers/<id>.json`, identified by the file stem. */
export const serverKind: CapabilityKind<ServerRecord> = {
  kind: 'server',
  folder: 'servers',
  sessionKey: 'servers',
  readEntry: readServerEntry,
};

function readServerEntry(entry: KindFolderEntry): EntryScan<ServerRecord> {
  if (entry.isDirectory || !entry.name.endsWith('.json')) return { records: [], diagnostics: [] };
  const relative = path.relative(entry.root.dir, entry.path);
  const id = entry.name.slice(0, -'.json'.length);
  if (!SERVER_ID.test(id)) {
    throw new DocumentRefusedError('SERVER_ID_INVALID', `${relative}: a server's file name must be 1-64 letters, digits, ".", "_" or "-"`);
  }
  const file = readJsonCapability(entry.root.dir, entry.path, serverDefinitionShape);
  if (file === null) return { records: [], diagnostics: [] };
  const common = {
    id,
    name: file.name,
    description: file.description ?? '',
    path: entry.path,
    gates: declaredGates(file.gates, relative),
  };
  const record =
    'command' in file
      ? { ...common, transport: 'stdio' as const, command: file.command, args: file.args.map(redactCredentials), envKeys: Object.keys(file.env) }
      : { ...common, transport: 'http' as const, url: redactCredentials(file.url) };
  return { records: [record], diagnostics: [] };
}

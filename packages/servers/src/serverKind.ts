import path from 'node:path';
import {
  type CapabilityKind,
  declaredGates,
  capabilityId,
  type EntryScan,
  type KindDocument,
  type KindFolderEntry,
  readJsonCapability,
  redactArguments,
  redactCredentials,
  redactSecrets,
} from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import { serverRunnableParts } from './serverRunnableParts.js';
import { SERVER_DEFINITION, SERVER_ID, type ServerDefinitionFile, serverDefinitionShape, type ServerRecord } from './ServerDefinition.js';

/** A server is `servers/<id>.json`; its id is the file stem, its display name the JSON's `"name"`. */
export const SERVER_DOCUMENT = { idRule: 'entry', nameField: 'json' } as const satisfies KindDocument;

/**
 * The MCP server kind: `servers/<id>.json`, identified by the file stem. A plugin's manifest may
 * declare servers inline; each comes with its definition as `content`, is named `<id>.json`, and
 * reads the same way.
 */
export const serverKind: CapabilityKind<ServerRecord> = {
  kind: 'server',
  folder: 'servers',
  sessionKey: 'servers',
  document: SERVER_DOCUMENT,
  readEntry: readServerEntry,
  runnable: serverRunnableParts,
};

function readServerEntry(entry: KindFolderEntry): EntryScan<ServerRecord> {
  if (entry.isDirectory || !entry.name.endsWith('.json')) return { records: [], diagnostics: [] };
  const relative = path.relative(entry.root.dir, entry.path);
  // The id is the file stem whatever the name inside, so a bad one is refused before the file is read.
  const id = capabilityId(undefined, entry.content === undefined ? relative : entry.name, SERVER_DOCUMENT);
  if (!SERVER_ID.test(id)) {
    throw new DocumentRefusedError('SERVER_ID_INVALID', `${relative}: a server's file name must be 1-64 letters, digits, ".", "_" or "-"`);
  }
  const file =
    entry.content === undefined ? readJsonCapability(entry.root.dir, entry.path, serverDefinitionShape) : inlineDefinition(entry, relative);
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
      ? {
          ...common,
          transport: 'stdio' as const,
          command: redactSecrets(file.command),
          args: redactArguments(file.args),
          envKeys: Object.keys(file.env),
          ...(file.cwd === undefined ? {} : { cwd: file.cwd }),
        }
      : { ...common, transport: 'http' as const, url: redactCredentials(file.url) };
  return { records: [{ ...record, [SERVER_DEFINITION]: file }], diagnostics: [] };
}

/** A server a manifest declares, checked against the same format as a file. */
function inlineDefinition(entry: KindFolderEntry, relative: string): ServerDefinitionFile {
  const checked = serverDefinitionShape(entry.content);
  if (!checked.ok)
    throw new DocumentRefusedError('DOCUMENT_INVALID', `${relative} (server ${entry.name.replace(/\.json$/, '')}): ${checked.reason}`);
  return checked.value;
}

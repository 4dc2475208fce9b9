import { readJsonCapability, redactArguments, redactCredentials, redactSecrets, type Root } from '@loadout/kernel';
import { DocumentRefusedError } from '@loadout/files';
import { type ServerDefinitionFile, serverDefinitionShape, type ServerRecord } from './ServerDefinition.js';

/** What stands in for a credential value wherever a server document is shown. */
export const REDACTED = '[redacted]';

/**
 * A server document as it may be shown to an agent or a person: every environment value and
 * header value replaced by {@link REDACTED} (they are where tokens live), credentials in URLs and
 * arguments removed. Names of variables and headers stay, so a reader knows what must be set.
 */
export interface RedactedServerDocument {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly transport: 'stdio' | 'http';
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Reads a session's server record's file again, now, and redacts it. Null when the file is gone.
 * Throws `DocumentRefusedError` when it no longer reads as a server definition. A server a
 * plugin's manifest declares (its record's path is the manifest) is taken from the root's layout,
 * where the session found it, placeholders already expanded.
 *
 * @param root the root the record was read from (or its folder): nothing outside it is followed
 */
export function readRedactedServerDocument(record: ServerRecord, root: Root | string): RedactedServerDocument | null {
  const file =
    typeof root === 'string' ? readServerFile(record, root) : (inlineDefinitionOf(record, root) ?? readServerFile(record, root.dir));
  if (file === null) return null;
  const common = { id: record.id, name: file.name, description: file.description ?? '' };
  const hidden = (values: Readonly<Record<string, string>>): Record<string, string> =>
    Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED]));
  if ('command' in file) {
    return { ...common, transport: 'stdio', command: redactSecrets(file.command), args: redactArguments(file.args), env: hidden(file.env) };
  }
  return {
    ...common,
    transport: 'http',
    url: redactCredentials(file.url),
    ...(file.headers === undefined ? {} : { headers: hidden(file.headers) }),
  };
}

function readServerFile(record: ServerRecord, rootDir: string): ServerDefinitionFile | null {
  return readJsonCapability(rootDir, record.path, serverDefinitionShape);
}

/** The definition a root's layout declares inline for the record, or null when it is a file of its own. */
function inlineDefinitionOf(record: ServerRecord, root: Root): ServerDefinitionFile | null {
  const sources = root.layout?.kinds.servers ?? [];
  for (const source of sources) {
    if (!('document' in source) || source.document.path !== record.path || source.document.name !== `${record.id}.json`) continue;
    const checked = serverDefinitionShape(source.document.content);
    if (!checked.ok) throw new DocumentRefusedError('DOCUMENT_INVALID', `server ${record.id}: ${checked.reason}`);
    return checked.value;
  }
  return null;
}

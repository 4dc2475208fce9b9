import path from 'node:path';
import { DocumentRefusedError, emptyFileBytes, readRegularFile, trackedFs } from '@loadout/files';
import { McpConfigNotUtf8Error, McpConfigUnreadableError } from './McpConfigDocument.js';

/** The largest runtime configuration file read: `~/.claude.json` keeps every project's history and runs to megabytes. */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/** Decodes UTF-8 or throws: a byte that is not UTF-8 must not become U+FFFD in a file written back. A BOM is kept as text. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text of a runtime's configuration file (`~/.claude.json`, `.mcp.json`, Codex's
 * `config.toml`), or null when it does not exist. The file is the user's, so a link in its place
 * is followed (a dotfiles manager keeps these as links; a project's link out of the project is
 * refused before this by `rootOutsideAnchor`); what it leads to is read as the kernel reads every
 * file it does not own ({@link readRegularFile}): opened without waiting on a FIFO's writer and
 * read only when it is a regular file of at most {@link MAX_CONFIG_BYTES}.
 *
 * @param label how messages name the file (`~/.claude.json`), never its absolute path
 * @throws McpConfigUnreadableError a FIFO, a folder, a socket, a link loop or a file over the limit
 * @throws McpConfigNotUtf8Error bytes that are not UTF-8: Loadout edits text only, so it keeps its hands off
 */
export function readConfigText(file: string, label: string): string | null {
  let real: string;
  try {
    real = trackedFs.realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP')
      throw new McpConfigUnreadableError(`${label} is a link that leads back to itself (a loop); Loadout leaves it as it is`, {
        cause: error,
      });
    throw error;
  }
  const into = emptyFileBytes();
  try {
    const tooLarge = (): Error =>
      new McpConfigUnreadableError(`${label} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; Loadout leaves it as it is`);
    if (!readRegularFile(path.dirname(real), real, MAX_CONFIG_BYTES, into, { tooLarge, followLinks: false })) return null;
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
    // The kernel names the file by its base name: the message names it as the user knows it.
    throw new McpConfigUnreadableError(
      `${label}${error.message.replace(/^[^:]*:/, '').replace(/; it is not read$/, '')}; Loadout leaves it as it is`,
      { cause: error },
    );
  }
  try {
    return strictUtf8.decode(into.buffer.subarray(0, into.length));
  } catch (error) {
    throw new McpConfigNotUtf8Error(label, { cause: error });
  }
}

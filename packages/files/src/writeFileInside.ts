import path from 'node:path';
import { describeFileType, isInside } from './pathsInside.js';
import { writeFileAtomicSync, WriteRefusedError } from './writeFileAtomic.js';
import { trackedFs } from './ReadLog.js';

/**
 * Checks that `target` can be written under `rootDir` exactly where it is named: it lies beneath
 * the root, no name on the way from the root down to it is a link, every one of them that exists
 * is a folder, and `target` itself, when it exists, is a regular file (or, with `folder`, a
 * folder) and not a link. The root itself may be a link: it is where the owner put it.
 *
 * A reader follows links that stay inside their root; a writer follows none, so editing one
 * document never changes another one that a link shares, inside the root or out of it.
 *
 * @param options.folder `target` is a folder to write into, not a file
 * @throws WriteRefusedError naming the link or the odd file, before anything is written
 */
export function checkWriteInside(rootDir: string, target: string, options: { folder?: boolean } = {}): void {
  const root = path.resolve(rootDir);
  const resolved = path.resolve(target);
  if (!isInside(root, resolved) || resolved === root) {
    throw new WriteRefusedError('PATH_OUTSIDE_ROOT', `${target} is not inside ${rootDir}; nothing was written`);
  }
  const parts = path.relative(root, resolved).split(path.sep);
  let current = root;
  for (let i = 0; i < parts.length; i += 1) {
    current = path.join(current, parts[i] as string);
    const stats = trackedFs.lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return;
    const shown = path.relative(root, current);
    if (stats.isSymbolicLink()) {
      throw new WriteRefusedError(
        'PATH_IS_LINK',
        `${shown} is a link; Loadout does not write through links, so nothing was written (edit what it points to instead)`,
      );
    }
    const last = i === parts.length - 1;
    const wanted = last && options.folder !== true ? stats.isFile() : stats.isDirectory();
    if (!wanted) {
      throw new WriteRefusedError('NOT_A_FILE', `${shown} is ${describeFileType(stats)}; nothing was written`);
    }
  }
}

/**
 * Writes a document under `rootDir` with the kernel's one atomic write, after
 * {@link checkWriteInside}: never through a link, never onto a FIFO or a folder, never outside.
 */
export function writeFileInside(rootDir: string, file: string, content: string | Buffer): void {
  checkWriteInside(rootDir, file);
  writeFileAtomicSync(file, content);
}

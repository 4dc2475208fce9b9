export { childPath } from './childPath.js';
export { editJsonText, type JsonTextEdit } from './editJsonText.js';
export { ensurePrivateFolder, narrowMode, PRIVATE_FILE_MODE } from './ensurePrivateFolder.js';
export { acquireFileLock, type FileLock, FileLockError, type FileLockOptions, type FileLockRetries, withFileLock } from './FileLock.js';
export { type FileReader, nodeFileReader } from './FileReader.js';
export { isRegularFile, pathAndRealPath } from './filePaths.js';
export {
  ConflictError,
  type ErrorCategory,
  InvalidInputError,
  isLoadoutError,
  LoadoutError,
  NotFoundError,
  OperationFailedError,
  ServiceUnavailableError,
} from './LoadoutError.js';
export { type EntryType, type FolderEntry, type FolderListing, folderEntryInside, listFolderInside } from './listFolderInside.js';
export { type EntryMoves, MOVE_STAGING_PREFIX, moveEntry, nodeEntryMoves } from './moveEntry.js';
export {
  DocumentRefusedError,
  DocumentUnreadableError,
  isInside,
  isNormalAbsolute,
  OPEN_FLAGS,
  realpathInside,
  relativeInside,
  resolveInside,
  unreadable,
} from './pathsInside.js';
export { isProcessAlive, processStartTime } from './processIdentity.js';
export { emptyFileBytes, type FileBytes, readRegularFile, type RegularFileOptions } from './readRegularFile.js';
export { changedAfter, isFolderStamp, RACY_MS, statStamp } from './statStamp.js';
export { writeFileAtomicSync, WriteRefusedError } from './writeFileAtomic.js';
export { checkWriteInside, writeFileInside } from './writeFileInside.js';
export { type LstatAnswer, type ReadLog, spoilReads, spoilsReads, trackedFs, withReadLog } from './ReadLog.js';

import { ConflictError, InvalidInputError, NotFoundError, OperationFailedError } from '@loadout/files';

/**
 * A plugin URL, name or ref that is refused before git starts: it is not one of the allowed
 * transports, or it could act as a git option or run code.
 */
export class PluginInputRefusedError extends InvalidInputError {}

/** The cloned repository is not something Loadout installs (no kind folder, a submodule …). */
export class PluginRepositoryRefusedError extends InvalidInputError {}

/** No installed plugin has that name. */
export class PluginNotFoundError extends NotFoundError {
  constructor(name: string) {
    super('PLUGIN_NOT_FOUND', `no plugin named ${name} is installed`);
  }
}

/** The name is already taken by an installed plugin or by a folder in `plugins/`. */
export class PluginExistsError extends ConflictError {}

/** An update that would lose or bury work: local changes in the clone, or history that diverged. */
export class PluginUpdateRefusedError extends ConflictError {}

/** Git itself failed (network, missing repository, timeout); the message is git's, credentials removed. */
export class PluginGitError extends OperationFailedError {}

/** The owner's capabilities folder is not inside a git repository, so tracked and untracked cannot be told apart. */
export class OwnerRepositoryNotGitError extends ConflictError {
  constructor(dir: string) {
    super('OWNER_REPOSITORY_NOT_GIT', `${dir} is not in a git repository; migrate needs git to tell the owner's files from copies`);
  }
}

/** `capabilities/loadout-lock.json` cannot be read as a lock file; nothing that would rewrite it goes ahead. */
export class PluginLockInvalidError extends ConflictError {
  constructor(message: string) {
    super('PLUGIN_LOCK_INVALID', message);
  }
}

/** A marketplace repository or index Loadout cannot use, or an entry it cannot install. */
export class MarketplaceRefusedError extends InvalidInputError {}

/** No marketplace, or no entry in it, has that name. */
export class MarketplaceNotFoundError extends NotFoundError {}

/** The name is already taken by an added marketplace or a folder where it would go. */
export class MarketplaceExistsError extends ConflictError {}

/** `plugins sync` cannot make `plugins/` match the lock (or, with `--frozen`, it does not match). */
export class PluginSyncRefusedError extends ConflictError {}

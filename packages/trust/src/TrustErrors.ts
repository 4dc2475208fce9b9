import { ConflictError, NotFoundError, ServiceUnavailableError } from '@loadout/files';

/** `untrust` of a project that is not trusted: nothing to forget, said rather than passed over. */
export class ProjectNotTrustedError extends NotFoundError {
  constructor(project: string) {
    super('PROJECT_NOT_TRUSTED', `project ${project} is not trusted; nothing to untrust`);
  }
}

/** `plugins diff` of a plugin that was never approved: there is no approved commit to compare with. */
export class PluginNotApprovedError extends ConflictError {
  constructor(plugin: string) {
    super(
      'PLUGIN_NOT_APPROVED',
      `plugin ${plugin} was never approved, so there is nothing to compare with; \`loadout audit\` lists what it runs`,
    );
  }
}

/** A plugin named by trust commands is not installed. */
export class TrustPluginNotFoundError extends NotFoundError {
  constructor(plugin: string) {
    super('PLUGIN_NOT_FOUND', `no plugin named ${plugin} is installed`);
  }
}

/** Too many plugin diffs asked for at once: each runs git and holds what it prints, so their number is bounded. */
export class DiffBusyError extends ServiceUnavailableError {
  constructor() {
    super('PLUGIN_DIFF_BUSY', 'too many plugin diffs are being computed now; ask again in a moment');
  }
}

/**
 * `plugins approve NAME --commit SHA` when the plugin is no longer what was reviewed at SHA: it
 * moved to another commit, or its clone holds changes to what it runs that no commit holds.
 * Nothing is approved.
 */
export class PluginApprovalStaleError extends ConflictError {
  constructor(plugin: string, why: string) {
    super(
      'PLUGIN_APPROVAL_STALE',
      `plugin ${plugin} is not what was reviewed: ${why}; nothing was approved. Run \`loadout plugins diff ${plugin}\` again and approve the commit it shows`,
    );
  }
}

import { changedPlaces } from '@loadout/kept-reads';
import { type CapabilityHold, type CapabilityHolder, type CapabilityRecord, type SessionHolder, type SessionScope } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { approvalKey, RunnableCapabilities } from './RunnableCapabilities.js';
import type { PluginApproval } from './TrustStore.js';
import { TrustStore } from './TrustStore.js';

/**
 * The one trust rule, asked by every session (and so by every face that runs something) and by
 * the state resolver. Only a runnable capability can be held:
 * - one of a project's own `.agents` is held until the owner trusts that project (`untrusted-project`);
 * - one of a plugin is held until the owner approved the plugin and what it runs now has the
 *   fingerprint approved (`unapproved-plugin`): an update that changes a script holds it again.
 * The owner's own capabilities are theirs: never held.
 */
@injectable()
export class TrustHolder implements CapabilityHolder {
  /**
   * The runnable records of the last list asked about, by that list's identity: whether a record
   * may run something depends on the record alone (its kind, and for a skill what it was read
   * with: scripts, tool grants), and records are never changed once made, so a warm
   * session looks at its few runnable records instead of asking about 10,000. Their holds are
   * decided afresh every time (approvals and what they run are read now).
   */
  private runnableOfLast: { readonly records: readonly CapabilityRecord[]; readonly runnable: readonly CapabilityRecord[] } | null = null;

  constructor(
    @inject(TrustStore) private readonly store: TrustStore,
    @inject(RunnableCapabilities) private readonly runnable: RunnableCapabilities,
  ) {}

  /**
   * Reads once what the session's scope needs (the project's trust, the approvals of its plugins)
   * and holds from that: never a read per record, and the database may be another host's.
   */
  async forSession(scope: SessionScope): Promise<SessionHolder> {
    const plugins = scope.roots.flatMap((root) => (root.plugin === null ? [] : [root.plugin]));
    const [projectTrusted, approvals] = await Promise.all([
      scope.project === null ? false : this.store.isProjectTrusted(scope.project),
      this.store.approvalsOf(plugins),
    ]);
    return (records) => {
      const holds = new Map<CapabilityRecord, CapabilityHold>();
      for (const record of this.runnableOf(records)) {
        if (record.level === 'project' && record.plugin === null) {
          if (!projectTrusted) holds.set(record, untrustedProject(scope.project));
          continue;
        }
        if (record.plugin === null) continue;
        const hold = this.pluginHold(record, record.plugin, approvals.get(record.plugin) ?? null, scope);
        if (hold !== null) holds.set(record, hold);
      }
      return holds;
    };
  }

  private runnableOf(records: readonly CapabilityRecord[]): readonly CapabilityRecord[] {
    const last = this.runnableOfLast;
    if (last?.records === records) return last.runnable;
    // The same list but for a few records, none of them runnable before or after: the runnable
    // ones are the very same records in the same order, so the list found last time stands.
    const runnable =
      last !== null && this.sameRunnable(last.records, records)
        ? last.runnable
        : records.filter((record) => this.runnable.isRunnable(record));
    // A single record is a lookup (Session.admitted): not worth displacing a whole session's list.
    if (records.length > 1) this.runnableOfLast = { records, runnable };
    return runnable;
  }

  /** Whether `records` differs from `before` only at places where neither record is runnable (and not at too many of them). */
  private sameRunnable(before: readonly CapabilityRecord[], records: readonly CapabilityRecord[]): boolean {
    const changed = changedPlaces(before, records, MAX_CHANGED);
    return (
      changed !== null &&
      changed.every(
        (i) => !this.runnable.isRunnable(before[i] as CapabilityRecord) && !this.runnable.isRunnable(records[i] as CapabilityRecord),
      )
    );
  }

  private pluginHold(
    record: CapabilityRecord,
    plugin: string,
    approval: PluginApproval | null,
    scope: SessionScope,
  ): CapabilityHold | null {
    const root = scope.roots.find((candidate) => candidate.plugin === plugin);
    if (approval === null || root === undefined) {
      return {
        decidedBy: 'unapproved-plugin',
        reason: `plugin ${plugin} is not approved; see what it runs with \`loadout audit\`, then run \`loadout plugins approve ${plugin}\``,
      };
    }
    const reading = this.runnable.read(record, root);
    if (reading === null) return null;
    if (!reading.ok) return { decidedBy: 'unapproved-plugin', reason: `what it runs cannot be read (${reading.problem})` };
    const approved = approval.fingerprints.get(approvalKey(record));
    if (approved === reading.fingerprint) return null;
    return {
      decidedBy: 'unapproved-plugin',
      reason:
        approved === undefined
          ? `new since plugin ${plugin} was approved; run \`loadout plugins approve ${plugin}\``
          : `what it runs changed since plugin ${plugin} was approved at ${approval.commit.slice(0, 12)}; see \`loadout plugins diff ${plugin}\`, then run \`loadout plugins approve ${plugin}\``,
    };
  }
}

/** More records changed than this and the runnable ones are looked for again from scratch. */
const MAX_CHANGED = 32;

function untrustedProject(project: string | null): CapabilityHold {
  return {
    decidedBy: 'untrusted-project',
    reason: `project ${project ?? '(none)'} is not trusted; run \`loadout trust ${project ?? 'PROJECT'}\``,
  };
}

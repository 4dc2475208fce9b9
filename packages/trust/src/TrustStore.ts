import { token } from '@loadout/kernel';

/** A project the owner trusts to run its own tasks and servers. */
export interface TrustedProject {
  /** The project's real path: what trust is keyed by. */
  readonly path: string;
  readonly trustedAt: string;
}

/** What the owner approved of one plugin: the commit they saw, and a fingerprint of each runnable capability. */
export interface PluginApproval {
  readonly plugin: string;
  /** The clone's commit when it was approved; what `plugins diff` compares against. */
  readonly commit: string;
  readonly approvedAt: string;
  /** `<kind>/<lower-cased id>` → the hash of what it runs, as approved. */
  readonly fingerprints: ReadonlyMap<string, string>;
}

/**
 * The trust record: which projects are trusted, and what of each plugin is approved. The one
 * place these facts are kept (in Loadout's database: the SQLite file, or the PostgreSQL database
 * several servers share, so a decision made through one holds on all); the rules that use them
 * live in the trust holder and service. Every write is one transaction and moves the session stamp.
 *
 * @example
 * await store.trustProject('/work/app');
 * await store.isProjectTrusted('/work/app'); // true
 * await store.approvePlugin('pdf', 'c0ffee…', new Map([['task/convert', 'ab12…']]));
 */
export interface TrustStore {
  isProjectTrusted(project: string): Promise<boolean>;
  /** Trusts a project (its real path); trusting it again keeps the first date. */
  trustProject(project: string): Promise<TrustedProject>;
  /** Forgets a project's trust; false when it was not trusted. */
  untrustProject(project: string): Promise<boolean>;
  /** Every trusted project, by path. */
  listTrustedProjects(): Promise<TrustedProject[]>;
  /** What was approved of a plugin, or null when nothing ever was. */
  approvalOf(plugin: string): Promise<PluginApproval | null>;
  /** What was approved of each of `plugins` that has an approval, in one read: what a session needs. */
  approvalsOf(plugins: readonly string[]): Promise<ReadonlyMap<string, PluginApproval>>;
  /** Replaces a plugin's approval whole, in one transaction. */
  approvePlugin(plugin: string, commit: string, fingerprints: ReadonlyMap<string, string>): Promise<PluginApproval>;
  /** Forgets a plugin's approval (it was uninstalled). */
  forgetPlugin(plugin: string): Promise<void>;
}
export const TrustStore = token<TrustStore>('trust.store');

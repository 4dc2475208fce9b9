import { isLoadoutError, trackedFs, withFileLock, writeFileAtomicSync } from '@loadout/files';
import { RestoreOccupiedError, RuntimeChangedDuringApplyError } from '../RuntimeErrors.js';
import type { RuntimeTrash, ServerTrashEntry } from '../RuntimeTrash.js';
import type { McpConfigDocument } from './McpConfigDocument.js';
import type { McpManifest, McpManifestEntry } from './McpManifest.js';
import type { PlannedServerChange } from './PlannedServerChange.js';
import { applyServerChanges, entryHashes, openMcpConfig } from './planServers.js';
import { readConfigText } from './readConfigText.js';
import { type McpConfigFile, recordedFileOf } from './RuntimeMcpSupport.js';
import { serverEntryHash } from './ServerSpec.js';

/** How often a file that changed under a read-modify-write is read again before the run gives up. */
const ATTEMPTS = 5;

/**
 * Writes server entries into runtimes' configuration files. Each file is a read-modify-write: taken
 * under the runtime's own lock when it has one (Claude Code's `~/.claude.json.lock`), the entries
 * checked against the plan, the file read again just before the rename and the edit redone when
 * something else wrote it meanwhile, so the user's other settings are never lost. The manifest
 * records each write before it happens (pending) and settles it after; the trash receives a retired
 * value before it leaves the file.
 */
export class McpConfigWriter {
  constructor(
    private readonly manifest: McpManifest,
    private readonly trash: RuntimeTrash,
    private readonly show: (absolute: string) => string,
  ) {}

  /** Settles writes an interrupted run left pending in `files`, against what the files hold now. */
  settle(files: readonly { runtime: string; target: McpConfigFile }[]): void {
    if (!this.manifest.hasPending()) return;
    let changed = false;
    for (const { runtime, target } of files) {
      let hashes: Map<string, string>;
      try {
        hashes = entryHashes(openMcpConfig(target, readConfigText(target.file, this.show(target.file)), this.show(target.file)));
      } catch (error) {
        if (isLoadoutError(error)) continue;
        throw error;
      }
      changed = this.manifest.settle(runtime, recordedFileOf(target), hashes, (id) => this.trash.discard(id)) || changed;
    }
    if (changed) this.manifest.write();
  }

  /** Applies one runtime's changes to one file; returns the trash entries of what it retired. */
  async apply(
    runtime: string,
    target: McpConfigFile,
    changes: readonly PlannedServerChange[],
    project: string | null,
  ): Promise<ServerTrashEntry[]> {
    const bookkeeping = changes.filter((change) => change.action === 'release' || change.action === 'forget');
    for (const change of bookkeeping) this.manifest.delete(runtime, recordedFileOf(target), change.name);
    const edits = changes.filter((change) => change.action === 'create' || change.action === 'update' || change.action === 'retire');
    if (edits.length === 0) {
      if (bookkeeping.length > 0) this.forgetMadeWhenEmpty(runtime, recordedFileOf(target));
      this.manifest.write();
      return [];
    }
    return this.locked(target, () => this.readModifyWrite(runtime, target, edits, project));
  }

  /** Puts a retired server entry back into its file, managed again. Never overwrites. */
  async restore(entry: ServerTrashEntry): Promise<void> {
    const value = this.trash.serverValue(entry);
    await this.locked(entry.target, () => {
      for (let attempt = 1; ; attempt += 1) {
        const before = readConfigText(entry.target.file, this.show(entry.target.file));
        const document = openMcpConfig(entry.target, before, this.show(entry.target.file));
        if (document.servers().has(entry.name)) throw new RestoreOccupiedError(`server "${entry.name}" in ${this.show(entry.target.file)}`);
        const made = this.madeFor(entry.runtime, recordedFileOf(entry.target), before, document);
        document.set(entry.name, value as Record<string, unknown>);
        if (!this.replace(entry.target, before, document, attempt)) continue;
        if (made !== null) this.manifest.recordMade(recordedFileOf(entry.target), made);
        this.manifest.set({
          kind: 'server',
          runtime: entry.runtime,
          file: recordedFileOf(entry.target),
          name: entry.name,
          hash: serverEntryHash(value),
          source: entry.source,
          bridge: entry.bridge,
          writtenAt: new Date().toISOString(),
        });
        this.manifest.write();
        this.trash.discard(entry.id);
        return;
      }
    });
  }

  private readModifyWrite(
    runtime: string,
    target: McpConfigFile,
    edits: readonly PlannedServerChange[],
    project: string | null,
  ): ServerTrashEntry[] {
    const retired: ServerTrashEntry[] = [];
    const recorded = recordedFileOf(target);
    let prepared = false;
    for (let attempt = 1; ; attempt += 1) {
      const before = readConfigText(target.file, this.show(target.file));
      const document = this.open(target, before);
      for (const change of edits) {
        const now = document.servers().get(change.name);
        if ((now === undefined ? null : serverEntryHash(now)) !== change.expectedHash) {
          throw new RuntimeChangedDuringApplyError(
            `server "${change.name}" in ${this.show(target.file)} changed while applying; run apply again`,
          );
        }
      }
      const made = this.madeFor(runtime, recorded, before, document);
      if (!prepared) {
        retired.push(...this.prepare(runtime, target, edits, document, project));
        prepared = true;
      }
      applyServerChanges(document, edits);
      const last = this.manifest.entriesOf(runtime, recorded).every((entry) => entry.pending !== undefined && entry.pending.hash === null);
      const madeIn = this.manifest.madeIn(recorded);
      if (last && (madeIn === 'container' || madeIn === 'file')) document.removeEmptyContainer();
      const removeFile = last && madeIn === 'file' && document.isEmpty();
      if (!this.replace(target, before, removeFile ? null : document, attempt)) continue;
      if (made !== null) this.manifest.recordMade(recorded, made);
      this.manifest.settle(runtime, recorded, removeFile ? new Map() : entryHashes(document), (id) => this.trash.discard(id));
      this.forgetMadeWhenEmpty(runtime, recorded);
      this.manifest.write();
      return retired;
    }
  }

  /** Keeps the values about to be retired in the trash and records every write as pending. */
  private prepare(
    runtime: string,
    target: McpConfigFile,
    edits: readonly PlannedServerChange[],
    document: McpConfigDocument,
    project: string | null,
  ): ServerTrashEntry[] {
    const retired: ServerTrashEntry[] = [];
    const now = new Date().toISOString();
    for (const change of edits) {
      const recorded = this.manifest.get(runtime, recordedFileOf(target), change.name);
      const base: McpManifestEntry = recorded ?? {
        kind: 'server',
        runtime,
        file: recordedFileOf(target),
        name: change.name,
        hash: null,
        source: change.source,
        bridge: change.bridge,
        writtenAt: now,
      };
      if (change.action === 'retire') {
        const kept = this.trash.keepServer(
          {
            name: change.name,
            runtime,
            target,
            hash: change.expectedHash as string,
            source: change.source,
            bridge: change.bridge,
            project,
            reason: change.reason,
          },
          document.servers().get(change.name),
        );
        retired.push(kept);
        this.manifest.set({ ...base, pending: { hash: null, trash: kept.id } });
      } else {
        this.manifest.set({
          ...base,
          source: change.source,
          bridge: change.bridge,
          writtenAt: now,
          pending: { hash: change.hash, trash: null },
        });
      }
    }
    this.manifest.write();
    return retired;
  }

  /**
   * Writes the document (or removes the file, for null) unless the file changed since `before` was
   * read: then false, and the caller reads it again and redoes its edit. The comparison is made
   * once the new text is on disk beside the file, just before the rename, so a runtime's own write
   * (`codex mcp add`) landing while the text was written is seen, never renamed over. The user's
   * link in the file's place is followed: the file it leads to is the one replaced.
   */
  private replace(target: McpConfigFile, before: string | null, document: McpConfigDocument | null, attempt: number): boolean {
    const label = this.show(target.file);
    const unchanged = (): boolean => readConfigText(target.file, label) === before;
    let replaced = false;
    if (document !== null) {
      replaced = writeFileAtomicSync(target.file, document.text(), { mode: target.createMode, followLink: true, stillCurrent: unchanged });
    } else if (unchanged()) {
      trackedFs.rmSync(target.file, { force: true });
      replaced = true;
    }
    if (replaced) return true;
    if (attempt >= ATTEMPTS)
      throw new RuntimeChangedDuringApplyError(`${label} kept changing while applying; nothing was lost from it, run apply again`);
    return false;
  }

  /** What Loadout makes to hold its first entry in a file, or null when it already has entries there. */
  private madeFor(
    runtime: string,
    file: string,
    before: string | null,
    document: McpConfigDocument,
  ): 'file' | 'container' | 'nothing' | null {
    if (this.manifest.entriesOf(runtime, file).some((entry) => entry.hash !== null)) return null;
    if (this.manifest.madeIn(file) !== null) return null;
    return before === null ? 'file' : document.hasContainer() ? 'nothing' : 'container';
  }

  private forgetMadeWhenEmpty(runtime: string, file: string): void {
    if (this.manifest.entriesOf(runtime, file).length === 0) this.manifest.forgetMade(file);
  }

  private open(target: McpConfigFile, text: string | null): McpConfigDocument {
    try {
      return openMcpConfig(target, text, this.show(target.file));
    } catch (error) {
      if (!isLoadoutError(error)) throw error;
      throw new RuntimeChangedDuringApplyError(`${error.message} (it changed while applying)`);
    }
  }

  /** Runs `work` under the runtime's own lock of the file, when it has one. */
  private async locked<T>(target: McpConfigFile, work: () => T): Promise<T> {
    if (!target.sharedLock) return work();
    return withFileLock(target.file, work, {
      stale: 10_000,
      retries: { retries: 40, factor: 1.3, minTimeout: 25, maxTimeout: 500, randomize: true },
    });
  }
}

import path from 'node:path';
import { editJsonText, type JsonTextEdit, trackedFs, writeFileAtomicSync } from '@loadout/files';
import { RestoreOccupiedError, RuntimeChangedDuringApplyError } from '../RuntimeErrors.js';
import type { DocumentTrashEntry, RuntimeTrash } from '../RuntimeTrash.js';
import { type DocumentManifest, MADE_FILE } from './DocumentManifest.js';
import { documentHash, groupHashes, type PlannedDocumentChange, readSettings } from './planDocuments.js';

/** How often a settings file that changed under a read-modify-write is read again before the run gives up. */
const ATTEMPTS = 5;

/**
 * Writes agents, commands and hook entries into runtimes. A file is written whole (atomically)
 * only where the plan found nothing or Loadout's own unedited copy; a settings file is a
 * read-modify-write of the `hooks` entries Loadout manages only, through the one JSON edit
 * (`editJsonText`), so every other byte stays; the file is read again just before the rename and
 * the edit redone when something else wrote it meanwhile. What is retired goes to the trash first.
 */
export class DocumentWriter {
  constructor(
    private readonly manifest: DocumentManifest,
    private readonly trash: RuntimeTrash,
    private readonly show: (absolute: string) => string,
  ) {}

  /** Runs every change; returns the trash entries of what it retired. The manifest is written once, at the end. */
  apply(changes: readonly PlannedDocumentChange[], project: string | null): DocumentTrashEntry[] {
    const retired: DocumentTrashEntry[] = [];
    try {
      const hooks = new Map<string, PlannedDocumentChange[]>();
      for (const change of changes) {
        if (change.kind !== 'hook') {
          const entry = this.applyFile(change, project);
          if (entry !== null) retired.push(entry);
          continue;
        }
        const key = `${change.runtime}\0${change.file}`;
        hooks.set(key, [...(hooks.get(key) ?? []), change]);
      }
      for (const list of hooks.values()) retired.push(...this.applyHooks(list, project));
    } finally {
      this.manifest.write();
    }
    return retired;
  }

  private record(change: PlannedDocumentChange): void {
    this.manifest.set({ ...placeOf(change), hash: change.hash as string, writtenAt: new Date().toISOString() });
  }

  private applyFile(change: PlannedDocumentChange, project: string | null): DocumentTrashEntry | null {
    const current = (): string | null =>
      trackedFs.existsSync(change.file) ? documentHash(trackedFs.readFileSync(change.file, 'utf8')) : null;
    const expect = (hash: string | null): void => {
      if (current() !== hash) throw new RuntimeChangedDuringApplyError(`${this.show(change.file)} changed while applying; run apply again`);
    };
    switch (change.action) {
      case 'create':
      case 'update':
        expect(change.expectedHash);
        writeFileAtomicSync(change.file, change.text as string);
        this.record(change);
        return null;
      case 'adopt':
        expect(change.expectedHash);
        this.record(change);
        return null;
      case 'release':
      case 'forget':
        this.manifest.delete(change);
        return null;
      case 'retire': {
        expect(change.expectedHash);
        const entry = this.trash.keepDocument(this.trashDetails(change, project), null);
        this.manifest.delete(change);
        return entry;
      }
    }
  }

  private trashDetails(change: PlannedDocumentChange, project: string | null): Omit<DocumentTrashEntry, 'version' | 'id' | 'retiredAt'> {
    return { ...placeOf(change), hash: change.expectedHash as string, project, reason: change.reason };
  }

  /**
   * One settings file's hook changes: the groups Loadout manages are found by their hash (the user's
   * are never touched), removed, replaced or appended, and the containers Loadout made for its first
   * hook are taken away with its last.
   */
  private applyHooks(changes: readonly PlannedDocumentChange[], project: string | null): DocumentTrashEntry[] {
    const first = changes[0] as PlannedDocumentChange;
    const file = first.file;
    for (const change of changes) if (change.action === 'release' || change.action === 'forget') this.manifest.delete(change);
    const edits = changes.filter((change) => change.action !== 'release' && change.action !== 'forget');
    if (edits.length === 0) return [];
    for (let attempt = 1; ; attempt += 1) {
      const read = readSettings(file, this.show(file));
      if ('problem' in read) throw new RuntimeChangedDuringApplyError(`${read.problem}; run apply again once it is fixed`);
      const planned = this.hookEdits(read.value, read.text, edits);
      if (planned === null) throw new RuntimeChangedDuringApplyError(`${this.show(file)} changed while applying; run apply again`);
      const { text, made, unmade, removed } = planned;
      // Read again just before writing: another program's write since is never lost.
      if (currentText(file) !== read.text) {
        if (attempt >= ATTEMPTS) throw new RuntimeChangedDuringApplyError(`${this.show(file)} keeps changing; run apply again`);
        continue;
      }
      const retired = removed.map(({ change, value }) => this.trash.keepDocument(this.trashDetails(change, project), value));
      if (text === null) trackedFs.rmSync(file, { force: true });
      else writeFileAtomicSync(file, text, { followLink: true });
      for (const change of edits) {
        if (change.action === 'retire') this.manifest.delete(change);
        else this.record(change);
      }
      this.manifest.recordMade(file, made);
      this.manifest.forgetMade(file, unmade);
      return retired;
    }
  }

  /**
   * The edited text of a settings file, or null when a group the plan expects is not there; the
   * text null when the file Loadout made holds nothing else any more.
   */
  private hookEdits(
    value: unknown,
    text: string | null,
    changes: readonly PlannedDocumentChange[],
  ): { text: string | null; made: string[]; unmade: string[]; removed: { change: PlannedDocumentChange; value: unknown }[] } | null {
    const settings = structuredClone(value) as { hooks?: Record<string, unknown[]> };
    const madeBefore = this.manifest.madeIn(changes[0]?.file as string);
    const made: string[] = [];
    if (text === null) made.push(MADE_FILE);
    const removed: { change: PlannedDocumentChange; value: unknown }[] = [];
    const edits: JsonTextEdit[] = [];
    if (settings.hooks === undefined) {
      made.push('hooks');
      settings.hooks = {};
      edits.push({ path: ['hooks'], value: {} });
    }
    const hooks = settings.hooks;
    // Removals and replacements first, by the hash each group has now, highest index first per event.
    const byEvent = new Map<string, PlannedDocumentChange[]>();
    for (const change of changes) byEvent.set(change.event as string, [...(byEvent.get(change.event as string) ?? []), change]);
    for (const [event, list] of byEvent) {
      const hashes = groupHashes(settings, event);
      const used = new Set<number>();
      const removals: number[] = [];
      for (const change of list.filter(
        (candidate) => candidate.action === 'retire' || candidate.action === 'update' || candidate.action === 'adopt',
      )) {
        const index = hashes.findIndex((hash, position) => hash === change.expectedHash && !used.has(position));
        if (index === -1) return null;
        used.add(index);
        if (change.action === 'retire') {
          removed.push({ change, value: (hooks[event] as unknown[])[index] });
          removals.push(index);
        } else if (change.action === 'update') {
          edits.push({ path: ['hooks', event, index], value: change.value });
          (hooks[event] as unknown[])[index] = change.value;
        }
      }
      for (const index of removals.sort((a, b) => b - a)) {
        edits.push({ path: ['hooks', event, index], value: undefined });
        (hooks[event] as unknown[]).splice(index, 1);
      }
      const creates = list.filter((candidate) => candidate.action === 'create');
      if (creates.length > 0 && !Array.isArray(hooks[event])) {
        made.push(`hooks/${event}`);
        hooks[event] = [];
        edits.push({ path: ['hooks', event], value: [] });
      }
      for (const change of creates) {
        const groups = hooks[event] as unknown[];
        edits.push({ path: ['hooks', event, groups.length], value: change.value });
        groups.push(change.value);
      }
    }
    // What Loadout made and no longer holds anything is taken away, so the file reads as it did.
    const unmade: string[] = [];
    const owned = [...madeBefore, ...made];
    for (const event of byEvent.keys()) {
      if (owned.includes(`hooks/${event}`) && Array.isArray(hooks[event]) && hooks[event].length === 0) {
        edits.push({ path: ['hooks', event], value: undefined });
        delete hooks[event];
        unmade.push(`hooks/${event}`);
      }
    }
    if (owned.includes('hooks') && Object.keys(hooks).length === 0) {
      edits.push({ path: ['hooks'], value: undefined });
      delete settings.hooks;
      unmade.push('hooks');
    }
    if (owned.includes(MADE_FILE) && Object.keys(settings).length === 0) {
      return { text: null, made: [], unmade: [...unmade, MADE_FILE], removed };
    }
    const edited = editJsonText(text, edits, { reflow: false });
    if (edited === null) return null;
    return { text: edited, made: made.filter((item) => !unmade.includes(item)), unmade, removed };
  }

  /** Puts a retired agent, command or hook back where it was, managed again. Never overwrites. */
  restore(entry: DocumentTrashEntry): void {
    if (entry.kind !== 'hook') {
      if (trackedFs.lstatSync(entry.file, { throwIfNoEntry: false }) !== undefined) throw new RestoreOccupiedError(this.show(entry.file));
      trackedFs.mkdirSync(path.dirname(entry.file), { recursive: true });
      this.trash.takeOut(entry, entry.file);
    } else {
      const value = this.trash.serverValue(entry) as Record<string, unknown>;
      const change: PlannedDocumentChange = {
        kind: 'hook',
        action: 'create',
        runtime: entry.runtime,
        name: entry.name,
        file: entry.file,
        event: entry.event,
        hash: documentHash(value),
        expectedHash: null,
        text: null,
        value,
        source: entry.source,
        sourcePath: null,
        reason: 'restored',
      };
      this.applyHooks([change], entry.project);
      this.trash.discard(entry.id);
    }
    const { kind, runtime, file, event, name, hash, source } = entry;
    this.manifest.set({ kind, runtime, file, event, name, hash, source, writtenAt: new Date().toISOString() });
    this.manifest.write();
  }
}

/** Which document a change is and where: what the manifest and the trash both keep of it. */
function placeOf(change: PlannedDocumentChange): Pick<DocumentTrashEntry, 'kind' | 'name' | 'runtime' | 'file' | 'event' | 'source'> {
  return {
    kind: change.kind,
    name: change.name,
    runtime: change.runtime,
    file: change.file,
    event: change.event,
    source: change.source ?? { id: change.name, level: 'global', plugin: null },
  };
}

function currentText(file: string): string | null {
  try {
    return trackedFs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

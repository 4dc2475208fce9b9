import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { SqlDatabase } from '@loadout/db';
import {
  type CapabilityKind,
  type CapabilityRecord,
  collisionKey,
  type Diagnostic,
  type KindEntryScan,
  type KindFolderScan,
  type Level,
  type ListedRecord,
  Places,
  PROJECT_ROOT_FOLDER,
  type Root,
  scanKindFolder,
  SessionLoader,
  token,
  WiringError,
} from '@loadout/kernel';
import { type FileLockRetries, isInside, isLoadoutError, MOVE_STAGING_PREFIX, moveEntry, trackedFs, withFileLock } from '@loadout/files';
import { CapabilityStateStore, decideSurfaced } from '@loadout/state';
import { inject, injectable } from 'tsyringe';
import { applyGateCarry, type GateCarryPlan, planGateCarry } from './carryGates.js';
import {
  CapabilityNotFoundError,
  LandingRefusedError,
  PluginCapabilityImmovableError,
  TransferBusyError,
  TransferFailedError,
  TransferHeldError,
  TransferRefusedError,
} from './LevelErrors.js';
import { MoveFileSystem } from './MoveFileSystem.js';
import { type Placement, planPlacement } from './planPlacement.js';
import { rewriteDocumentName, writtenName } from './rewriteDocumentName.js';
import { parseTransferRequest, type LevelEnd, type TransferableKind, type TransferRequest } from './TransferRequest.js';
import { type JournalPlan, TransferJournal } from './TransferJournal.js';
import { transferStep } from './transferStep.js';

/** A record as `skills list` / `servers list` shows it: every root's copy, on or not. */
export type ListedCapability = ListedRecord;

/** What a transfer did. */
export interface TransferResult {
  /** False when both ends are one folder: nothing was touched. */
  readonly moved: boolean;
  /** The record as the scanner lists it where it landed, under the id it landed on. */
  readonly record: CapabilityRecord;
  /** Where it came from and as what. */
  readonly previous: { readonly id: string; readonly name: string; readonly path: string };
  /** Whether a collision gave it another id or display name. */
  readonly renamed: boolean;
  /** The surfaced value carried to the destination (null for a no-op). */
  readonly surfaced: boolean | null;
  /** Gate values carried into the destination's `config.json`. */
  readonly gates: Readonly<Record<string, boolean>>;
  /** What the scanner advised about the landed document (e.g. naming rules); not a refusal. */
  readonly diagnostics: readonly Diagnostic[];
  /** Parts of the move that did not complete though the document moved. */
  readonly warnings: readonly string[];
}

/**
 * Where an owner's skill or server lives: listing every root's copies and moving one between the
 * global level and a project (or between two projects). Seed 000; see docs/decisions/levels.md.
 *
 * @example
 * const levels = resolve(container, CapabilityLevels);
 * await levels.transfer({ kind: 'skill', id: 'pdf', from: { level: 'project', projectPath: '/work/app' }, to: { level: 'global' } });
 */
export interface CapabilityLevels {
  /** Every record of `kind` in the roots of a session for `project`, shadowed and switched-off ones included. */
  list(kind: TransferableKind, project: string | null): Promise<ListedCapability[]>;
  /**
   * Moves one owner's document (a skill file, a skill folder with its resources, a server JSON)
   * and carries its state. `request` is checked here: a malformed one is `CAPABILITY_INVALID`.
   */
  transfer(request: unknown): Promise<TransferResult>;
  /**
   * Undoes or finishes every move a killed process left half done: one that stopped before its
   * state was carried is undone (the source stays, the landing goes); one that stopped after is
   * finished (gates carried, the source removed). `transfer` does this first. Returns a line per
   * move resolved.
   */
  recover(): Promise<string[]>;
}
export const CapabilityLevels = token<CapabilityLevels>('levels.service');

/** One end, resolved: its root, the project it names, and the project its state was shown in. */
interface ResolvedEnd {
  readonly root: Root;
  /** The project's real path for a project end, else null. */
  readonly project: string | null;
  /** The project whose view the source's state is read in (a project end's own; optional on global). */
  readonly context: string | null;
}

/** Everything a move will do, decided before anything is touched ({@link FileCapabilityLevels.planMove}). */
interface MovePlan {
  readonly kind: CapabilityKind;
  readonly from: ResolvedEnd;
  readonly to: ResolvedEnd;
  readonly source: CapabilityRecord;
  readonly previous: TransferResult['previous'];
  /** The source document's bytes, to check a rollback gave them back. */
  readonly bytes: Buffer;
  /** The document's new text when a collision renames it; null to move it as it is. */
  readonly content: Buffer | null;
  /** The surfaced value the source row showed, carried to the landing. */
  readonly shown: boolean;
  readonly gatePlan: GateCarryPlan;
  readonly placement: Placement;
  readonly sourceEntry: string;
  readonly isFolder: boolean;
  readonly sourceFolder: string;
  readonly destFolder: string;
  readonly destEntry: string;
  /** The document itself: `destEntry`, or the document file inside it. */
  readonly destDocument: string;
  readonly transferId: string;
  readonly gateIds: { readonly from: string; readonly to: string };
  readonly gateRoots: { readonly from: string; readonly to: string };
}

/** What carrying out a {@link MovePlan} has done so far: what a rollback must undo. */
interface MoveRun {
  readonly plan: MovePlan;
  /** The first folder the move made for its landing, removed again if the move is undone. */
  createdFolder: string | undefined;
  /** Whether the landing was copied, so the source is still there to remove. */
  sourceKept: boolean;
  readonly warnings: string[];
}

/** Names of what a move leaves beside a landing or a source while it works; hidden from scans. */
const STAGING_PREFIX = MOVE_STAGING_PREFIX;
const HIDDEN_SOURCE_PREFIX = '.loadout-moved-';
/** The lock every transfer of one workspace takes, in the data folder. */
const LOCK_NAME = 'levels-transfer';
/** How long a transfer waits for another to finish: about ten seconds. */
const TRANSFER_LOCK_RETRIES: FileLockRetries = { retries: 40, factor: 1.3, minTimeout: 25, maxTimeout: 500, randomize: true };

/** {@link CapabilityLevels} over the owner's roots on disk and the state store. */
@injectable()
export class FileCapabilityLevels implements CapabilityLevels {
  private readonly journal: TransferJournal;

  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(Places) private readonly places: Places,
    @inject(CapabilityStateStore) private readonly state: CapabilityStateStore,
    @inject(SqlDatabase) private readonly db: SqlDatabase,
    @inject(MoveFileSystem) private readonly files: MoveFileSystem,
  ) {
    this.journal = new TransferJournal(db, `${os.hostname()}:${places.dataDir}`);
  }

  list(kindName: TransferableKind, project: string | null): Promise<ListedCapability[]> {
    return this.loader.listRecords(this.kindOf(kindName).kind, project);
  }

  async transfer(input: unknown): Promise<TransferResult> {
    const request = parseTransferRequest(input);
    const kind = this.kindOf(request.kind);
    const from = this.resolveEnd(request.from);
    const to = this.resolveEnd(request.to);
    return this.withTransferLock(async () => {
      const recovered = await this.recoverLocked();
      const result = await this.move(request, kind, from, to);
      return recovered.length === 0 ? result : { ...result, warnings: [...recovered, ...result.warnings] };
    });
  }

  recover(): Promise<string[]> {
    return this.withTransferLock(() => this.recoverLocked());
  }

  /**
   * Resolves every move left in the journal. It never deletes the last copy of a document: a
   * source is removed only while its landing is there, and a landing only while its source is.
   * When the owner removed one of the two copies a killed move left, the other one stays where
   * it is, with the state the move carried given back to it if the landing is what went.
   */
  private async recoverLocked(): Promise<string[]> {
    const resolved: string[] = [];
    const pending = await this.journal.list();
    for (const { id, plan, stateMoved } of pending) {
      try {
        // A source the move had already hidden comes back first when its landing is gone, so the
        // clearing of leftovers below never takes the last copy; another move's hidden source is
        // left for that move's own recovery.
        const hidden = hiddenSourceOf(plan.sourceEntry, id);
        if (!exists(plan.sourceEntry) && !exists(plan.destEntry) && exists(hidden)) this.files.rename(hidden, plan.sourceEntry);
        const others = new Set(
          pending.filter((other) => other.id !== id).map((other) => path.basename(hiddenSourceOf(other.plan.sourceEntry, other.id))),
        );
        this.removeLeftovers(path.dirname(plan.sourceEntry), others);
        this.removeLeftovers(path.dirname(plan.destEntry), others);
        const sourceThere = exists(plan.sourceEntry);
        const landed = exists(plan.destEntry);
        if (!sourceThere && !landed) {
          resolved.push(
            `an interrupted move of ${plan.label} found neither ${plan.sourceEntry} nor ${plan.destEntry}: both were removed since; nothing was changed`,
          );
        } else if (!stateMoved) {
          // Before the commit point: back to where it was. A landing beside a kept source is a
          // whole copy (it was renamed into place in one step); a landing without one is the
          // source itself, renamed.
          if (landed && sourceThere) this.files.remove(plan.destEntry);
          else if (landed) this.files.rename(plan.destEntry, plan.sourceEntry);
          resolved.push(`undid an interrupted move of ${plan.label}: it is back at ${plan.sourceEntry}`);
        } else if (landed) {
          const { gates } = plan;
          await applyGateCarry({ values: new Map(gates.values), sourceHasEntry: gates.sourceHasEntry }, plan.kind, gates.ids, gates.roots);
          if (sourceThere) this.removeSource(plan.label, plan.sourceEntry, plan.destEntry, id);
          resolved.push(`finished an interrupted move of ${plan.label}: it is at ${plan.destEntry}`);
        } else {
          await this.giveBack(plan);
          resolved.push(
            `an interrupted move of ${plan.label} left a copy at ${plan.destEntry} that was removed since; ${plan.sourceEntry} is the last copy and stays where it is`,
          );
        }
        await this.journal.finish(id);
      } catch (error) {
        // Kept in the journal: the next transfer tries again.
        resolved.push(`could not yet resolve an interrupted move of ${plan.label}: ${messageOf(error)}`);
      }
    }
    return resolved;
  }

  /**
   * Gives a source that stays (its landing was removed after the state moved) the on/off switch
   * and the gate settings the move had carried to the landing.
   */
  private async giveBack(plan: JournalPlan): Promise<void> {
    const { state, gates } = plan;
    if (state !== undefined) {
      await this.db.transaction(async (tx) => {
        await this.state.forget(plan.kind, gates.ids.to, state.to === null ? { allProjects: false } : { project: state.to }, tx);
        await this.state.setSurfaced(plan.kind, gates.ids.from, state.from, state.surfaced, tx);
      });
    }
    if (gates.values.length > 0) {
      await applyGateCarry(
        { values: new Map(gates.values), sourceHasEntry: true },
        plan.kind,
        { from: gates.ids.to, to: gates.ids.from },
        { from: gates.roots.to, to: gates.roots.from },
      );
    }
  }

  /** A move: planned whole before anything is touched, then carried out step by journal step. */
  private async move(request: TransferRequest, kind: CapabilityKind, from: ResolvedEnd, to: ResolvedEnd): Promise<TransferResult> {
    const plan = await this.planMove(request, kind, from, to);
    if ('moved' in plan) return plan;
    return this.executeMove(plan);
  }

  /**
   * Everything a move will do, decided by reading alone: the source and its bytes, where it lands
   * and under which name (its rewritten text when a collision renames it), the state and gate
   * values it carries. Everything that can refuse the move refuses here, before anything is
   * touched. Both ends in one folder is the finished result of a move that does nothing.
   */
  private async planMove(
    request: TransferRequest,
    kind: CapabilityKind,
    from: ResolvedEnd,
    to: ResolvedEnd,
  ): Promise<MovePlan | TransferResult> {
    const { record: source, entry } = this.findSource(request, kind, from);
    const previous = { id: source.id, name: source.name, path: source.path };
    if (sameFolder(from.root.dir, to.root.dir)) {
      return { moved: false, record: source, previous, renamed: false, surfaced: null, gates: {}, diagnostics: [], warnings: [] };
    }
    await this.refuseLiftingHold(source, from, to);
    // The whole entry moves: a folder document with everything beside it, or a single file.
    const sourceEntry = entry.path;
    if (trackedFs.lstatSync(sourceEntry).isSymbolicLink()) {
      throw new TransferRefusedError(`${label(source)}: ${sourceEntry} is a link; move what it points to instead`);
    }
    const relative = path.relative(from.root.dir, source.path);
    const bytes = this.files.read(source.path);
    const text = bytes.toString('utf8');
    const shown = decideSurfaced('installed', await this.state.surfacedFor(kind.kind, source.id, from.context)).surfaced;
    const viewRoots =
      from.context === null ? [from.root.dir] : [...new Set([path.join(from.context, PROJECT_ROOT_FOLDER), this.places.capabilitiesDir])];
    const gatePlan = planGateCarry(kind.kind, source.id, source.gates, from.root.dir, viewRoots);
    const placement = planPlacement(
      {
        kind: kind.kind,
        document: kind.document,
        entryName: path.basename(sourceEntry),
        isFolder: entry.isDirectory,
        writtenName: writtenName(kind.document, text, relative),
        displayName: source.name,
      },
      { kindFolder: kind.folder, ...scanKindFolder(kind, to.root) },
    );
    let content: Buffer | null = null;
    if (placement.rename !== null) {
      if (!Buffer.from(text, 'utf8').equals(bytes)) {
        throw new TransferRefusedError(`${relative}: is not valid UTF-8, so its name cannot be rewritten without changing other bytes`);
      }
      content = Buffer.from(rewriteDocumentName(kind.document, text, placement.rename, relative), 'utf8');
    }
    const destFolder = path.join(to.root.dir, kind.folder);
    return {
      kind,
      from,
      to,
      source,
      previous,
      bytes,
      content,
      shown,
      gatePlan,
      placement,
      sourceEntry,
      isFolder: entry.isDirectory,
      sourceFolder: path.join(from.root.dir, kind.folder),
      destFolder,
      destEntry: path.join(destFolder, placement.entryName),
      destDocument: path.join(to.root.dir, placement.relativePath),
      transferId: randomUUID(),
      gateIds: { from: source.id, to: placement.id },
      gateRoots: { from: from.root.dir, to: to.root.dir },
    };
  }

  /** Carries out a planned move, one method per step the journal and its recovery know. */
  private async executeMove(plan: MovePlan): Promise<TransferResult> {
    const run: MoveRun = { plan, createdFolder: undefined, sourceKept: false, warnings: [] };
    await this.prepareMove(run);
    await this.beginMove(run);
    await this.landMove(run);
    const arrival = await this.verifyMove(run);
    await this.moveState(run, arrival.record);
    await this.moveGates(run);
    if (run.sourceKept) run.warnings.push(...this.removeSource(label(plan.source), plan.sourceEntry, plan.destEntry, plan.transferId));
    await this.journal.finish(plan.transferId);
    return {
      moved: true,
      record: arrival.record,
      previous: plan.previous,
      renamed: plan.placement.rename !== null || collisionKey(arrival.record.id) !== collisionKey(plan.source.id),
      surfaced: plan.shown,
      gates: Object.fromEntries(plan.gatePlan.values),
      diagnostics: arrival.diagnostics,
      warnings: run.warnings,
    };
  }

  /** Clears what killed moves left beside either end (but another move's unresolved remains) and makes the landing folder. */
  private async prepareMove(run: MoveRun): Promise<void> {
    const { plan } = run;
    const unresolved = new Set((await this.journal.list()).map((row) => path.basename(hiddenSourceOf(row.plan.sourceEntry, row.id))));
    this.removeLeftovers(plan.sourceFolder, unresolved);
    this.removeLeftovers(plan.destFolder, unresolved);
    run.createdFolder = this.prepareFolder(plan.to.root, plan.destFolder);
  }

  /** Journal step one: the move is recorded, so a kill from here on is resolved by the next transfer. */
  private async beginMove(run: MoveRun): Promise<void> {
    const { plan } = run;
    try {
      await this.journal.begin(plan.transferId, {
        kind: plan.kind.kind,
        label: label(plan.source),
        sourceEntry: plan.sourceEntry,
        destEntry: plan.destEntry,
        gates: {
          values: [...plan.gatePlan.values],
          sourceHasEntry: plan.gatePlan.sourceHasEntry,
          ids: plan.gateIds,
          roots: plan.gateRoots,
        },
        state: { from: plan.from.project, to: plan.to.project, surfaced: plan.shown },
      });
    } catch (error) {
      removeEmptyFolders(plan.destFolder, run.createdFolder);
      throw new TransferFailedError(`${label(plan.source)} was not moved: the database could not record the move (${messageOf(error)})`, {
        cause: error,
      });
    }
  }

  /** Step `landed`: the document is at its landing path (the source kept when it was copied). */
  private async landMove(run: MoveRun): Promise<void> {
    const { plan } = run;
    try {
      run.sourceKept = this.land({ ...plan, createdFolder: run.createdFolder }).sourceKept;
    } catch (error) {
      await this.journal.finish(plan.transferId);
      throw error;
    }
  }

  /** The scanner reads the landing as planned; else the move is undone and refused. */
  private async verifyMove(run: MoveRun): Promise<{ record: CapabilityRecord; diagnostics: Diagnostic[] }> {
    const { plan } = run;
    const arrival = this.verifyLanding(plan.kind, plan.to.root, plan.destEntry, plan.destDocument, plan.placement);
    if (typeof arrival !== 'string') return arrival;
    await this.rollBackMove(run);
    throw new LandingRefusedError(`${label(plan.source)} was not moved: ${arrival}; the source is back as it was`);
  }

  /** Step `state-moved`: the switch leaves the old id and lands on the new one, in one transaction with the journal's mark. */
  private async moveState(run: MoveRun, landed: CapabilityRecord): Promise<void> {
    const { plan } = run;
    try {
      await this.db.transaction(async (tx) => {
        await this.state.forget(
          plan.kind.kind,
          plan.source.id,
          plan.from.project === null ? { allProjects: true } : { project: plan.from.project },
          tx,
        );
        await this.state.setSurfaced(plan.kind.kind, landed.id, plan.to.project, plan.shown, tx);
        await this.journal.markStateMoved(plan.transferId, tx);
      });
    } catch (error) {
      await this.rollBackMove(run);
      throw new TransferFailedError(`${label(plan.source)} was not moved: its state could not be carried (${messageOf(error)})`, {
        cause: error,
      });
    }
    transferStep('state-moved');
  }

  /** Step `gates-moved`: the configured gates follow the new id; a failure here is a warning, the move stands. */
  private async moveGates(run: MoveRun): Promise<void> {
    const { plan } = run;
    try {
      await applyGateCarry(plan.gatePlan, plan.kind.kind, plan.gateIds, plan.gateRoots);
      transferStep('gates-moved');
    } catch (error) {
      run.warnings.push(`gate settings were not carried: ${messageOf(error)}`);
    }
  }

  /** Undoes a landing the move will not keep: the source back with its original bytes, the journal row closed. */
  private async rollBackMove(run: MoveRun): Promise<void> {
    const { plan } = run;
    try {
      if (run.sourceKept) this.files.remove(plan.destEntry);
      else this.files.rename(plan.destEntry, plan.sourceEntry);
      removeEmptyFolders(plan.destFolder, run.createdFolder);
    } catch (error) {
      throw new TransferFailedError(
        `${label(plan.source)}: the move failed and could not be undone: ${messageOf(error)}; it is at ${plan.destEntry}`,
        {
          cause: error,
        },
      );
    }
    if (!this.files.read(plan.source.path).equals(plan.bytes)) {
      throw new TransferFailedError(`${label(plan.source)}: the move failed and ${plan.source.path} does not hold its original bytes`);
    }
    await this.journal.finish(plan.transferId);
  }

  /**
   * Puts the document at its landing path. Without a rewrite it is renamed (one atomic step) and
   * copied only when the rename crosses file systems; a rewritten document is written (a folder:
   * copied, its document rewritten) before the source is touched. Anything written is assembled
   * under a hidden name beside the landing and renamed into place whole, so a landing is never
   * half there and a killed write leaves only a hidden name the next transfer clears.
   */
  private land(parts: {
    sourceEntry: string;
    destEntry: string;
    /** The document itself: `destEntry`, or the document file inside it. */
    destDocument: string;
    destFolder: string;
    isFolder: boolean;
    content: Buffer | null;
    createdFolder: string | undefined;
  }): { sourceKept: boolean } {
    const { sourceEntry, destEntry, destFolder, isFolder, content } = parts;
    if (trackedFs.existsSync(destEntry))
      throw new TransferFailedError(`${destEntry} appeared while the move was planned; nothing was moved`);
    try {
      if (content === null) {
        // The kernel's one mover: a rename, or across file systems a whole copy renamed into place.
        const how = moveEntry(sourceEntry, destEntry, { files: this.files, keepSource: true, onStaged: () => transferStep('staged') });
        transferStep('landed');
        return { sourceKept: how === 'copied' };
      }
      // A rewritten document is assembled the same way: under a hidden name, renamed into place whole.
      const staging = path.join(destFolder, `${STAGING_PREFIX}${randomUUID()}`);
      try {
        if (isFolder) {
          this.files.copy(sourceEntry, staging);
          this.files.write(path.join(staging, path.relative(destEntry, parts.destDocument)), content);
        } else {
          this.files.write(staging, content);
        }
        transferStep('staged');
        this.files.rename(staging, destEntry);
      } catch (error) {
        this.files.remove(staging);
        throw error;
      }
      transferStep('landed');
      return { sourceKept: true };
    } catch (error) {
      removeEmptyFolders(destFolder, parts.createdFolder);
      if (isLoadoutError(error)) throw error;
      throw new TransferFailedError(`could not place ${destEntry}: ${messageOf(error)}; the source was left as it was`, { cause: error });
    }
  }

  /**
   * The landed record as the scanner reads the destination root now, found by its path — never
   * by the name chosen for it — or a reason it is refused: not listed, listed under another id or
   * name than planned, or sharing its id with another document there.
   */
  private verifyLanding(
    kind: CapabilityKind,
    root: Root,
    destEntry: string,
    destDocument: string,
    placement: Placement,
  ): { record: CapabilityRecord; diagnostics: Diagnostic[] } | string {
    const scan = scanKindFolder(kind, root);
    const entry = scan.entries.find((candidate) => candidate.path === destEntry);
    const where = path.relative(root.dir, destDocument);
    if (entry === undefined) return `the scanner does not list ${where}`;
    if (entry.refused) return `the scanner refuses ${where} (${entry.diagnostics.map((d) => d.message).join('; ')})`;
    const record = entry.records.find((candidate) => candidate.path === destDocument);
    if (record === undefined) return `the scanner finds no ${kind.kind} in ${where}`;
    if (record.id !== placement.id) return `the scanner reads ${where} as "${record.id}", not the planned "${placement.id}"`;
    if (record.name !== placement.displayName) {
      return `the scanner shows ${where} as "${record.name}", not the planned "${placement.displayName}"`;
    }
    const sameId = scan.records.filter((other) => collisionKey(other.id) === collisionKey(record.id));
    if (sameId.length > 1)
      return `"${record.id}" is also the id of ${sameId.find((other) => other !== record)?.path ?? 'another document'}`;
    return { record, diagnostics: [...entry.diagnostics] };
  }

  /**
   * Removes the source once the landing holds: first renamed to a hidden name in its own folder
   * that names the move (one step, so it leaves every scan whole, and a recovery can find it),
   * then deleted. A failure to hide it is an error — the move would otherwise leave a copy; a
   * failure to delete the hidden remains is a warning, and the next transfer through that folder
   * clears them. Refused outright when the landing is not there: the source would be the last copy.
   */
  private removeSource(what: string, sourceEntry: string, destEntry: string, transferId: string): string[] {
    if (!exists(destEntry)) {
      throw new TransferFailedError(`${what}: ${destEntry} is not there, so ${sourceEntry} is the last copy and was kept`);
    }
    const hidden = hiddenSourceOf(sourceEntry, transferId);
    try {
      this.files.rename(sourceEntry, hidden);
    } catch (error) {
      throw new TransferFailedError(
        `${what} landed at ${destEntry} with its state, but ${sourceEntry} could not be removed (${messageOf(error)}); the next transfer tries again, or remove it by hand`,
        { cause: error },
      );
    }
    transferStep('source-hidden');
    try {
      this.files.remove(hidden);
      transferStep('source-removed');
      return [];
    } catch (error) {
      return [`the moved source's remains ${hidden} could not be deleted yet: ${messageOf(error)}`];
    }
  }

  /**
   * A move never lifts a hold: a capability held where it is (a server of an untrusted project)
   * may land only where the same trust rule still holds it (another untrusted project). Into the
   * owner's own level or a trusted project it would run without anyone having trusted it, so that
   * is refused before anything is touched, whatever the face (CLI, JSON-RPC). The switch does not
   * matter: a held capability that is off would be held again once on, and a moved one would not.
   */
  private async refuseLiftingHold(source: CapabilityRecord, from: ResolvedEnd, to: ResolvedEnd): Promise<void> {
    const held = await this.loader.holdOf(source, { project: from.project, roots: [from.root] });
    if (held === null) return;
    if ((await this.loader.holdOf({ ...source, level: to.root.level }, { project: to.project, roots: [to.root] })) !== null) return;
    const where = to.project === null ? 'the global level, which is never held' : `${to.project}, which is trusted`;
    throw new TransferHeldError(
      `${label(source)} is held (${held.decidedBy}: ${held.reason}) and moving it to ${where} would let it run untrusted; nothing was moved. ` +
        `Read what it runs, then run \`loadout trust ${from.project ?? 'PROJECT'}\` and move it again`,
    );
  }

  /** The owner's document at the source end and the entry that holds it, or the refusal that says why there is none. */
  private findSource(
    request: TransferRequest,
    kind: CapabilityKind,
    from: ResolvedEnd,
  ): { record: CapabilityRecord; entry: KindEntryScan } {
    const wanted = collisionKey(request.id);
    const found = findById(scanKindFolder(kind, from.root), wanted);
    if (found !== null) return found;
    for (const root of this.loader.buildRoots(null, { includeDisabled: true })) {
      if (root.plugin === null) continue;
      const fromPlugin = findById(scanKindFolder(kind, root), wanted)?.record;
      if (fromPlugin !== undefined) {
        throw new PluginCapabilityImmovableError(
          root.plugin,
          `${kind.kind} "${fromPlugin.id}" comes from plugin "${root.plugin}" and cannot be moved: a plugin's documents are read from its own clone`,
        );
      }
    }
    throw new CapabilityNotFoundError(`no ${kind.kind} "${request.id.slice(0, 100)}" at ${describeEnd(from)}`);
  }

  /** Creates the destination kind folder and refuses one that leads outside its root. */
  private prepareFolder(root: Root, folder: string): string | undefined {
    const created = trackedFs.mkdirSync(folder, { recursive: true });
    if (!isInside(trackedFs.realpathSync(root.dir), trackedFs.realpathSync(folder))) {
      throw new TransferRefusedError(`${folder} leads outside ${root.dir}; nothing is moved there`);
    }
    return created;
  }

  /**
   * Hidden staging copies and hidden sources left by a move that was killed; no move is running.
   * `keep` names hidden sources of moves still in the journal: each is its own recovery's to settle.
   */
  private removeLeftovers(folder: string, keep: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = trackedFs.readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      if (keep.has(name)) continue;
      if (name.startsWith(STAGING_PREFIX) || name.startsWith(HIDDEN_SOURCE_PREFIX)) this.files.remove(path.join(folder, name));
    }
  }

  private resolveEnd(end: LevelEnd): ResolvedEnd {
    if (end.level === 'project') {
      const project = SessionLoader.resolveProject(end.projectPath as string);
      return { root: ownerRoot(path.join(project, PROJECT_ROOT_FOLDER), 'project'), project, context: project };
    }
    const context = end.projectPath === undefined ? null : SessionLoader.resolveProject(end.projectPath);
    return { root: ownerRoot(this.places.capabilitiesDir, 'global'), project: null, context };
  }

  private kindOf(name: TransferableKind): CapabilityKind {
    const kind = this.loader.kinds().find((candidate) => candidate.kind === name);
    if (kind === undefined) throw new WiringError(`the levels mover needs the ${name} kind, which is not registered`);
    return kind;
  }

  /**
   * One transfer at a time per workspace: two moves into one folder could otherwise plan the same
   * free name. A lock left by a killed process goes stale after 10 s.
   */
  private withTransferLock<T>(work: () => Promise<T>): Promise<T> {
    return withFileLock(path.join(this.places.dataDir, LOCK_NAME), work, {
      stale: 10_000,
      retries: TRANSFER_LOCK_RETRIES,
      lockError: (error) =>
        error.code === 'FILE_LOCK_COMPROMISED'
          ? error
          : new TransferBusyError('another transfer is running in this workspace; try again', { cause: error }),
    });
  }
}

/** The hidden name a move gives its source just before deleting it: beside it, named after the move. */
function hiddenSourceOf(sourceEntry: string, transferId: string): string {
  return path.join(path.dirname(sourceEntry), `${HIDDEN_SOURCE_PREFIX}${transferId}`);
}

/** Whether anything (a file, a folder, a link) is at `target`. */
function exists(target: string): boolean {
  try {
    trackedFs.lstatSync(target);
    return true;
  } catch {
    return false;
  }
}

function ownerRoot(dir: string, level: Level): Root {
  return { dir, level, plugin: null, writable: true };
}

/** Whether two roots are one folder: their real paths (or, while missing, their resolved paths). */
function sameFolder(a: string, b: string): boolean {
  const real = (dir: string): string => {
    try {
      return trackedFs.realpathSync(dir);
    } catch {
      return path.resolve(dir);
    }
  };
  return real(a) === real(b);
}

/** The first record (in name order) whose id has the collision key `key`, with its entry. */
function findById(scan: KindFolderScan, key: string): { record: CapabilityRecord; entry: KindEntryScan } | null {
  for (const entry of scan.entries) {
    const record = entry.records.find((candidate) => collisionKey(candidate.id) === key);
    if (record !== undefined) return { record, entry };
  }
  return null;
}

/** Removes `folder` and its parents up to `created` (what this move created), when empty. */
function removeEmptyFolders(folder: string, created: string | undefined): void {
  if (created === undefined) return;
  let current = folder;
  while (isInside(created, current)) {
    try {
      trackedFs.rmdirSync(current);
    } catch {
      return;
    }
    if (current === created) return;
    current = path.dirname(current);
  }
}

function describeEnd(end: ResolvedEnd): string {
  return end.project === null ? `the global level (${end.root.dir})` : `the project level of ${end.project}`;
}

function label(record: CapabilityRecord): string {
  return `${record.kind} "${record.id}"`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

import path from 'node:path';
import { editJsonText, PRIVATE_FILE_MODE, trackedFs, withFileLock, writeFileAtomicSync } from '@loadout/files';
import { isJsonObject, Places, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { InstalledClients } from './clients/InstalledClients.js';
import type { RuntimeAdapter, RuntimePresence } from './RuntimeAdapter.js';
import { RuntimeEnvironment } from './RuntimeEnvironment.js';
import { RuntimeConfigInvalidError, RuntimeUnknownError } from './RuntimeErrors.js';
import { RuntimePlanner } from './RuntimePlanner.js';

/** Loadout's own settings for this machine, in the data folder: never in the capabilities repository, which other machines share. */
export const LOADOUT_CONFIG_FILE = 'config.json';
/** Where in it the chosen runtimes are kept. */
const CHOSEN_PATH = ['runtimes', 'chosen'] as const;

/**
 * How the runtimes an apply writes were picked:
 * - `named`: the command line or the request named them
 * - `chosen`: the owner chose them (`loadout runtimes use`)
 * - `detected`: nothing was chosen, so the runtimes found on this machine
 */
export type SelectionBasis = 'named' | 'chosen' | 'detected';

/** One known runtime: what was found of it on this machine, and whether this apply writes it. */
export interface RuntimeChoiceReport {
  readonly runtime: string;
  readonly verified: boolean;
  /** Its command found on `PATH` (the command's name, not where); null when none is. */
  readonly command: string | null;
  /** Its home folder that exists, redacted; null when none does. */
  readonly home: string | null;
  readonly detected: boolean;
  /** Whether the owner chose it. */
  readonly chosen: boolean;
  /** Whether this apply plans it. */
  readonly selected: boolean;
  /** Why it is or is not planned, in a few words. */
  readonly reason: string;
}

/** The runtimes an apply writes, and why the others are left out. */
export interface SelectionReport {
  readonly basis: SelectionBasis;
  /** The owner's choice; null when none is kept (the detected runtimes are written). */
  readonly chosen: readonly string[] | null;
  readonly runtimes: readonly RuntimeChoiceReport[];
}

/** What was found of one runtime on this machine. */
interface Detection {
  readonly command: string | null;
  readonly home: string | null;
  /** What was looked for; null for a runtime that says nothing of how to find it. */
  readonly looked: RuntimePresence | null;
}

/** What of `adapter` this machine has: the first of its commands on `PATH`, the first of its home folders that exists. */
export function detectRuntime(adapter: RuntimeAdapter, env: RuntimeEnvironment, clients: InstalledClients): Detection {
  const presence = adapter.presence?.(env);
  if (presence === undefined) return { command: null, home: null, looked: null };
  const command = presence.commands.find((name) => clients.find(name) !== null) ?? null;
  const home = presence.homes.find((folder) => trackedFs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true) ?? null;
  return { command, home, looked: presence };
}

/**
 * The owner's choice of runtimes, kept in `<data>/config.json` under `runtimes.chosen`. The file is
 * edited in place (editJsonText), so any other setting in it keeps its bytes.
 */
export class RuntimeChoices {
  private constructor(
    private readonly file: string,
    /** Null when no choice is kept. */
    readonly chosen: readonly string[] | null,
  ) {}

  static read(dataDir: string): RuntimeChoices {
    const file = path.join(dataDir, LOADOUT_CONFIG_FILE);
    const text = readText(file);
    if (text === null) return new RuntimeChoices(file, null);
    return new RuntimeChoices(file, chosenIn(text, file));
  }

  /**
   * Keeps `chosen` (null forgets the choice: the detected runtimes are written again), under the
   * file's lock so two commands never lose each other's edit. Names no adapter knows are refused
   * before anything is written.
   */
  static async write(dataDir: string, chosen: readonly string[] | null, known: readonly string[]): Promise<RuntimeChoices> {
    if (chosen !== null) {
      const unknown = chosen.find((name) => !known.includes(name));
      if (unknown !== undefined) throw new RuntimeUnknownError(unknown, known);
    }
    const file = path.join(dataDir, LOADOUT_CONFIG_FILE);
    return withFileLock(file, () => {
      const text = readText(file);
      if (text !== null) chosenIn(text, file);
      const value = chosen === null ? undefined : [...new Set(chosen)];
      const edited = editJsonText(text, [{ path: CHOSEN_PATH, value }]);
      if (edited === null)
        throw new RuntimeConfigInvalidError(
          file,
          'cannot record the choice without changing other settings (a key written twice?); edit it by hand',
        );
      trackedFs.mkdirSync(dataDir, { recursive: true });
      writeFileAtomicSync(file, edited, { mode: PRIVATE_FILE_MODE });
      return new RuntimeChoices(file, value ?? null);
    });
  }

  /** Where the choice is kept. */
  get path(): string {
    return this.file;
  }
}

function readText(file: string): string | null {
  try {
    return trackedFs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new RuntimeConfigInvalidError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
}

/** The chosen names in a config text; null when it keeps none. */
function chosenIn(text: string, file: string): string[] | null {
  if (text.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RuntimeConfigInvalidError(file, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (!isJsonObject(parsed)) throw new RuntimeConfigInvalidError(file, 'must hold a JSON object');
  const runtimes = parsed.runtimes;
  if (runtimes === undefined) return null;
  if (!isJsonObject(runtimes)) throw new RuntimeConfigInvalidError(file, '"runtimes" must be an object');
  const chosen = runtimes.chosen;
  if (chosen === undefined) return null;
  if (!Array.isArray(chosen) || !chosen.every((name): name is string => typeof name === 'string' && name !== '' && name.length <= 64))
    throw new RuntimeConfigInvalidError(file, '"runtimes.chosen" must be a list of runtime names');
  return chosen;
}

/**
 * Which runtimes an apply writes: those `named` when any are; else those the owner chose; else
 * those detected on this machine (a command on `PATH` or a home folder). Every known runtime is
 * reported with what was found of it and why it is or is not planned.
 */
export function selectRuntimes(input: {
  readonly adapters: readonly RuntimeAdapter[];
  readonly env: RuntimeEnvironment;
  readonly dataDir: string;
  readonly named: readonly string[];
  readonly show: (absolute: string) => string;
}): { selected: RuntimeAdapter[]; report: SelectionReport } {
  const { adapters, env, named } = input;
  const known = adapters.map((adapter) => adapter.name);
  for (const name of named) if (!known.includes(name)) throw new RuntimeUnknownError(name, known);
  const choices = RuntimeChoices.read(input.dataDir);
  const clients = new InstalledClients(null, env.variables);
  const basis: SelectionBasis = named.length > 0 ? 'named' : choices.chosen !== null ? 'chosen' : 'detected';
  const selected: RuntimeAdapter[] = [];
  const runtimes = adapters.map((adapter): RuntimeChoiceReport => {
    const found = detectRuntime(adapter, env, clients);
    const detected = found.command !== null || found.home !== null;
    const chosen = choices.chosen?.includes(adapter.name) === true;
    const isSelected = basis === 'named' ? named.includes(adapter.name) : basis === 'chosen' ? chosen : detected;
    if (isSelected) selected.push(adapter);
    return {
      runtime: adapter.name,
      verified: adapter.verified,
      command: found.command,
      home: found.home === null ? null : input.show(found.home),
      detected,
      chosen,
      selected: isSelected,
      reason: reasonFor(basis, isSelected, found, input.show),
    };
  });
  // The named order is kept: the planner reports runtimes in the order asked.
  if (basis === 'named') selected.sort((a, b) => named.indexOf(a.name) - named.indexOf(b.name));
  return { selected, report: { basis, chosen: choices.chosen, runtimes } };
}

function reasonFor(basis: SelectionBasis, selected: boolean, found: Detection, show: (absolute: string) => string): string {
  const seen = [
    ...(found.command === null ? [] : [`\`${found.command}\` on PATH`]),
    ...(found.home === null ? [] : [`${show(found.home)} exists`]),
  ].join(', ');
  if (basis === 'named') return selected ? 'named for this run' : 'not named for this run';
  if (basis === 'chosen') return selected ? `chosen${seen === '' ? ' (not found on this machine)' : ` (${seen})`}` : 'not chosen';
  if (selected) return `detected: ${seen}`;
  if (found.looked === null) return 'not detected: Loadout cannot tell whether it is installed; choose it with `loadout runtimes use`';
  const missing = [...found.looked.commands.map((command) => `\`${command}\``), ...found.looked.homes.map((home) => show(home))];
  return `not detected: none of ${missing.join(', ')} is on this machine`;
}

/**
 * The owner's choice of runtimes as the command line and the screen change it: which are known,
 * detected and chosen, and what an apply that names none would write.
 *
 * @example
 * await chooser.choose(['claude-code', 'codex']); // from now on, apply writes these two
 * await chooser.choose(null); // back to the runtimes detected on this machine
 */
export interface RuntimeChooser {
  /** Every known runtime, detected or not, chosen or not, and whether an apply naming none writes it. */
  describe(): SelectionReport;
  /** Keeps exactly `names` as the choice; null forgets it (the detected runtimes are written). */
  choose(names: readonly string[] | null): Promise<SelectionReport>;
  /** Adds to (`add`) or takes from (`drop`) what an apply writes now, and keeps the result as the choice. */
  change(how: 'add' | 'drop', names: readonly string[]): Promise<SelectionReport>;
}
export const RuntimeChooser = token<RuntimeChooser>('runtimes.chooser');

@injectable()
export class DataFolderRuntimeChooser implements RuntimeChooser {
  constructor(
    @inject(Places) private readonly places: Places,
    @inject(RuntimeEnvironment) private readonly env: RuntimeEnvironment,
    @inject(RuntimePlanner) private readonly planner: RuntimePlanner,
  ) {}

  describe(): SelectionReport {
    const redactor = this.planner.redactor(null);
    return selectRuntimes({
      adapters: this.planner.adapters(),
      env: this.env,
      dataDir: this.places.dataDir,
      named: [],
      show: (absolute) => redactor.path(absolute),
    }).report;
  }

  async choose(names: readonly string[] | null): Promise<SelectionReport> {
    await RuntimeChoices.write(this.places.dataDir, names, this.known());
    return this.describe();
  }

  async change(how: 'add' | 'drop', names: readonly string[]): Promise<SelectionReport> {
    const known = this.known();
    for (const name of names) if (!known.includes(name)) throw new RuntimeUnknownError(name, known);
    const now = this.describe()
      .runtimes.filter((entry) => entry.selected)
      .map((entry) => entry.runtime);
    const next = how === 'add' ? [...now, ...names] : now.filter((name) => !names.includes(name));
    // Kept in the order runtimes are listed, so the file reads the same whichever way it was reached.
    return this.choose(known.filter((name) => next.includes(name)));
  }

  private known(): string[] {
    return this.planner.adapters().map((adapter) => adapter.name);
  }
}

import {
  type CapabilityFilter,
  type CapabilityRecord,
  collisionKey,
  type Diagnostic,
  type FilterResult,
  type SessionFilter,
  type SessionScope,
} from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import { changedPlaces } from '@loadout/kept-reads';
import { inject, injectable } from 'tsyringe';
import { CapabilityStateStore, type SurfacedValues } from './CapabilityStateStore.js';
import { decideGate, decideSurfaced } from './decideState.js';
import { type GateConfig, readGateConfig } from './GateConfig.js';

/**
 * Makes every session honour capability state: a capability that is not surfaced in the session's
 * scope is left out, so it is in no list, no block and no lookup (`Session.isOn`, which task
 * lookup and the runner go through). A disabled plugin's capabilities never get here: the loader
 * does not read its root.
 *
 * The records that stay carry their gates as configured (the project's `config.json`, else the
 * owner's, else the declared default), so whatever consumes a session sees an inactive gate as off.
 */
@injectable()
export class CapabilityStateFilter implements CapabilityFilter {
  /**
   * The last answer with everything it was decided from: the very records array (records are never
   * changed once made; the session loader hands the same array while its scan stands), the stored
   * switches as read for this session, and the text of both `config.json` files as read for this
   * call. A warm session whose inputs all match gets the same answer without deciding 10,000
   * records again; the switches and both files are still read every time.
   */
  private last: { readonly inputs: FilterInputs; readonly result: FilterResult } | null = null;
  /**
   * What was decided for each record of the last list (itself, its copy with configured gates, or
   * null when off), place by place, while everything else it was decided from — the switches,
   * both roots and both `config.json` texts — is exactly {@link context}. A session after one
   * edited document (the same list but for a few records) decides only the records that are not
   * the very same object at the same place; any other input that moved decides all again.
   */
  private decided: ({ readonly context: FilterContext } & Decided) | null = null;

  constructor(@inject(CapabilityStateStore) private readonly store: CapabilityStateStore) {}

  async forSession(scope: SessionScope): Promise<SessionFilter> {
    const values = await this.store.surfacedMap(scope.project);
    const projectDir = scope.roots.find((root) => root.level === 'project')?.dir;
    const globalDir = scope.roots.find((root) => root.level === 'global' && root.plugin === null)?.dir;
    return (records) => {
      const diagnostics: Diagnostic[] = [];
      const projectConfig = readConfigOf(projectDir, diagnostics);
      const globalConfig = readConfigOf(globalDir, diagnostics);
      // A broken config.json is reported at every open and never kept.
      if (diagnostics.length > 0) return filterRecords(records, values, projectConfig, globalConfig, null, diagnostics).result;
      const context: FilterContext = {
        values,
        projectDir,
        globalDir,
        projectText: projectConfig?.text ?? null,
        globalText: globalConfig?.text ?? null,
      };
      const before = this.decided !== null && sameFilterContext(this.decided.context, context) ? this.decided : null;
      if (before !== null && this.last?.inputs.records === records) return this.last.result;
      const { result, decisions } = filterRecords(records, values, projectConfig, globalConfig, before, diagnostics);
      // A single record is a lookup (Session.isOn): not worth displacing a whole session's answer.
      if (records.length > 1) {
        this.last = { inputs: { records, context }, result };
        this.decided = { context, records, decisions, kept: result.records };
      }
      return result;
    };
  }
}

/** Everything {@link filterRecords} decides from besides the records. */
interface FilterContext {
  readonly values: ReadonlyMap<string, SurfacedValues>;
  readonly projectDir: string | undefined;
  readonly globalDir: string | undefined;
  readonly projectText: string | null;
  readonly globalText: string | null;
}

/** What {@link filterRecords} decided for a list: each place's decision, and the records kept. */
interface Decided {
  readonly records: readonly CapabilityRecord[];
  /** Per place: the record itself, its copy with configured gates, or null when it is off. */
  readonly decisions: readonly (CapabilityRecord | null)[];
  readonly kept: readonly CapabilityRecord[];
}

/**
 * At most this many replaced records are decided into copies of the last decisions; more (or any
 * record off before or after) decides the list place by place.
 */
const MAX_REPLACED = 32;

/** Everything {@link filterRecords} decides from. */
interface FilterInputs {
  readonly records: readonly CapabilityRecord[];
  readonly context: FilterContext;
}

function sameFilterContext(a: FilterContext, b: FilterContext): boolean {
  if (a.projectDir !== b.projectDir || a.globalDir !== b.globalDir) return false;
  if (a.projectText !== b.projectText || a.globalText !== b.globalText || a.values.size !== b.values.size) return false;
  for (const [key, value] of a.values) {
    const other = b.values.get(key);
    if (other === undefined || other.project !== value.project || other.global !== value.global) return false;
  }
  return true;
}

function filterRecords(
  records: readonly CapabilityRecord[],
  values: ReadonlyMap<string, SurfacedValues>,
  projectConfig: GateConfig | null,
  globalConfig: GateConfig | null,
  before: Decided | null,
  diagnostics: Diagnostic[],
): { result: FilterResult; decisions: (CapabilityRecord | null)[] } {
  // With no stored switches every capability is on by default: no key needs building.
  const stored = values.size > 0;
  const decide = (record: CapabilityRecord): CapabilityRecord | null => {
    const { surfaced } = decideSurfaced('installed', stored ? values.get(`${record.kind}/${collisionKey(record.id)}`) : undefined);
    return surfaced ? withConfiguredGates(record, projectConfig, globalConfig) : null;
  };
  // Decisions are reused place by place only from a list of the same length (an edit in place).
  const reusable = before !== null && before.records.length === records.length ? before : null;
  const replaced = reusable === null ? null : replacedAllOn(reusable, records, decide);
  if (replaced !== null) return { result: { records: replaced.kept, diagnostics }, decisions: replaced.decisions };
  const kept: CapabilityRecord[] = [];
  const off: string[] = [];
  const decisions: (CapabilityRecord | null)[] = new Array(records.length);
  for (let i = 0; i < records.length; i += 1) {
    const record = records[i] as CapabilityRecord;
    const decided =
      reusable !== null && reusable.records[i] === record ? (reusable.decisions[i] as CapabilityRecord | null) : decide(record);
    decisions[i] = decided;
    if (decided === null) off.push(`${record.kind}/${record.id}`);
    else kept.push(decided);
  }
  if (off.length > 0) {
    diagnostics.push({
      code: 'CAPABILITIES_OFF',
      severity: 'info',
      message: `${off.length} ${off.length === 1 ? 'capability is' : 'capabilities are'} turned off for this session: ${off.join(', ')}`,
    });
  }
  return { result: { records: kept, diagnostics }, decisions };
}

/**
 * The common edit in place: every record of the last list was on, a few were replaced, and each
 * replacement is on too. Then every place keeps its record in the kept list, so both lists are
 * copies of the last ones with the replaced places decided again; null in any other case.
 */
function replacedAllOn(
  before: Decided,
  records: readonly CapabilityRecord[],
  decide: (record: CapabilityRecord) => CapabilityRecord | null,
): { kept: CapabilityRecord[]; decisions: (CapabilityRecord | null)[] } | null {
  if (before.kept.length !== records.length) return null;
  const places = changedPlaces(before.records, records, MAX_REPLACED);
  if (places === null) return null;
  const kept = before.kept.slice();
  const decisions = before.decisions.slice();
  for (const place of places) {
    const decided = decide(records[place] as CapabilityRecord);
    if (decided === null) return null;
    kept[place] = decided;
    decisions[place] = decided;
  }
  return { kept, decisions };
}

function withConfiguredGates(
  record: CapabilityRecord,
  projectConfig: GateConfig | null,
  globalConfig: GateConfig | null,
): CapabilityRecord {
  if (!hasAny(record.gates)) return record;
  const names = Object.keys(record.gates);
  const gates: Record<string, boolean> = {};
  for (const name of names) {
    gates[name] = decideGate(record.kind, record.id, name, record.gates[name] === true, projectConfig, globalConfig).configured;
  }
  return { ...record, gates };
}

/**
 * A session still opens when a `config.json` is broken: its gates keep their declared defaults
 * and the session says why. `loadout capability state` refuses the same file outright.
 */
function readConfigOf(dir: string | undefined, diagnostics: Diagnostic[]): GateConfig | null {
  if (dir === undefined) return null;
  try {
    return readGateConfig(dir);
  } catch (error) {
    if (!isLoadoutError(error)) throw error;
    diagnostics.push({ code: error.code, severity: 'warning', message: `gates use their declared defaults: ${error.message}` });
    return null;
  }
}

/** Whether an object has an own key, without allocating the list of keys. */
function hasAny(object: Readonly<Record<string, unknown>>): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

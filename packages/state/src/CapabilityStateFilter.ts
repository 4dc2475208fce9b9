import {
  type CapabilityFilter,
  type CapabilityRecord,
  collisionKey,
  type Diagnostic,
  type FilterResult,
  isLoadoutError,
  type SessionFilter,
  type SessionScope,
} from '@loadout/kernel';
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
      const keepable = diagnostics.length === 0;
      const inputs: FilterInputs = { records, values, projectDir, globalDir, projectText: projectConfig?.text ?? null, globalText: globalConfig?.text ?? null };
      if (keepable && this.last !== null && sameInputs(this.last.inputs, inputs)) return this.last.result;
      const result = filterRecords(records, values, projectConfig, globalConfig, diagnostics);
      // A single record is a lookup (Session.isOn): not worth displacing a whole session's answer.
      if (keepable && records.length > 1) this.last = { inputs, result };
      return result;
    };
  }
}

/** Everything {@link filterRecords} decides from. */
interface FilterInputs {
  readonly records: readonly CapabilityRecord[];
  readonly values: ReadonlyMap<string, SurfacedValues>;
  readonly projectDir: string | undefined;
  readonly globalDir: string | undefined;
  readonly projectText: string | null;
  readonly globalText: string | null;
}

function sameInputs(a: FilterInputs, b: FilterInputs): boolean {
  if (a.records !== b.records || a.projectDir !== b.projectDir || a.globalDir !== b.globalDir) return false;
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
  diagnostics: Diagnostic[],
): FilterResult {
  const kept: CapabilityRecord[] = [];
  const off: string[] = [];
  // With no stored switches every capability is on by default: no key needs building.
  const stored = values.size > 0;
  for (const record of records) {
    const { surfaced } = decideSurfaced('installed', stored ? values.get(`${record.kind}/${collisionKey(record.id)}`) : undefined);
    if (!surfaced) {
      off.push(`${record.kind}/${record.id}`);
      continue;
    }
    kept.push(withConfiguredGates(record, projectConfig, globalConfig));
  }
  if (off.length > 0) {
    diagnostics.push({
      code: 'CAPABILITIES_OFF',
      severity: 'info',
      message: `${off.length} ${off.length === 1 ? 'capability is' : 'capabilities are'} turned off for this session: ${off.join(', ')}`,
    });
  }
  return { records: kept, diagnostics };
}

function withConfiguredGates(record: CapabilityRecord, projectConfig: GateConfig | null, globalConfig: GateConfig | null): CapabilityRecord {
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

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
  constructor(@inject(CapabilityStateStore) private readonly store: CapabilityStateStore) {}

  async forSession(scope: SessionScope): Promise<SessionFilter> {
    const values = await this.store.surfacedMap(scope.project);
    const projectDir = scope.roots.find((root) => root.level === 'project')?.dir;
    const globalDir = scope.roots.find((root) => root.level === 'global' && root.plugin === null)?.dir;
    return (records) => filterRecords(records, values, projectDir, globalDir);
  }
}

function filterRecords(
  records: readonly CapabilityRecord[],
  values: ReadonlyMap<string, SurfacedValues>,
  projectDir: string | undefined,
  globalDir: string | undefined,
): FilterResult {
  const diagnostics: Diagnostic[] = [];
  const projectConfig = readConfigOf(projectDir, diagnostics);
  const globalConfig = readConfigOf(globalDir, diagnostics);
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

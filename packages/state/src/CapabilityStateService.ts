import path from 'node:path';
import {
  type CapabilityHolder,
  CapabilityHolds,
  type CapabilityRecord,
  collisionKey,
  parseSwitch,
  PluginSource,
  type Root,
  SessionLoader,
  shadowRecords,
  token,
  WiringError,
} from '@loadout/kernel';
import { isLoadoutError, type LoadoutError, writeFileAtomicSync } from '@loadout/files';
import { inject, injectable, injectAll } from 'tsyringe';
import type { CapabilityStateEntry, GateState, SetCapabilityStateResult } from './CapabilityStateEntry.js';
import { CapabilityStateStore, type SurfacedChange } from './CapabilityStateStore.js';
import { decideGate, decideSurfaced, type InstallFloor } from './decideState.js';
import { type DesiredCapability, parseDesiredCapabilities, parseStateScope, type StateScope } from './DesiredCapability.js';
import { CONFIG_FILE, type GateChange, planGateRewrite, readGateConfig, withConfigLock } from './GateConfig.js';
import { StateDivergedError, StateRequestRefusedError, StateWriteFailedError } from './StateErrors.js';

/**
 * Capability state, read and written in the resolver's own vocabulary (seed 001). Both take a
 * scope: `{ project }` describes (and writes) that project's sessions, no project the global
 * default.
 *
 * @example
 * const state = resolve(container, CapabilityStateService);
 * await state.resolveCapabilityState({ project: '/work/app' });
 * await state.setCapabilityState({}, [{ kind: 'skill', id: 'pdf', enabled: false }]);
 */
export interface CapabilityStateService {
  /**
   * One entry per capability of the owner's roots and of every installed plugin, enabled or not,
   * ordered by kind then id. State stored for a capability that no longer exists is not shown.
   */
  resolveCapabilityState(scope: StateScope): Promise<CapabilityStateEntry[]>;
  /**
   * Writes desired states. Validates all of them first (unknown capability, undeclared gate, a
   * value that is not on/off, enabling a capability whose plugin is disabled) and writes nothing
   * when any fails; else writes the surfaced switches in one transaction and the gates in one
   * atomic `config.json` write under an inter-process lock, resolves again and reports every
   * divergence from what was asked as an error. Enabled with every gate off is a warning.
   *
   * @param desired checked with `DesiredCapabilitiesSchema`; a malformed batch throws
   *   `STATE_INPUT_INVALID`
   */
  setCapabilityState(scope: StateScope, desired: readonly DesiredCapability[]): Promise<SetCapabilityStateResult>;
}
export const CapabilityStateService = token<CapabilityStateService>('state.service');

/** A resolution with what the writer needs to find and place things. */
interface Resolution {
  readonly project: string | null;
  readonly entries: CapabilityStateEntry[];
  /** Entries by `<kind>/<lower-cased id>`. */
  readonly byKey: ReadonlyMap<string, CapabilityStateEntry>;
  readonly kinds: readonly string[];
  readonly projectRoot: Root | null;
  readonly ownerRoot: Root;
}

/** One capability's validated request. */
interface Plan {
  readonly entry: CapabilityStateEntry;
  enabled: boolean | undefined;
  /** Declared gate name → asked value. */
  readonly gates: Map<string, boolean>;
}

/** The {@link CapabilityStateService} over the database and the roots' `config.json` files. */
@injectable()
export class StoredCapabilityStateService implements CapabilityStateService {
  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(PluginSource) private readonly plugins: PluginSource,
    @inject(CapabilityStateStore) private readonly store: CapabilityStateStore,
    @injectAll(CapabilityHolds, { isOptional: true }) private readonly holders: CapabilityHolder[],
  ) {}

  async resolveCapabilityState(scope: StateScope): Promise<CapabilityStateEntry[]> {
    return (await this.resolveAt(projectOf(scope))).entries;
  }

  async setCapabilityState(scope: StateScope, desired: readonly DesiredCapability[]): Promise<SetCapabilityStateResult> {
    const requests = parseDesiredCapabilities(desired);
    const before = await this.resolveAt(projectOf(scope));
    const { plans, errors } = validate(before, requests);
    if (errors.length > 0) return { capabilities: before.entries, warnings: [], errors, written: false };

    const written = await this.write(before, plans);
    const after = await this.resolveAt(before.project);
    // A write that failed before anything landed is its own error; reading back what was not
    // written would only repeat it.
    const diverged = written.errors.length > 0 && !written.written ? [] : divergences(after, plans);
    return {
      capabilities: after.entries,
      warnings: presentButDead(after, plans),
      errors: [...written.errors, ...diverged],
      written: written.written,
    };
  }

  /**
   * One transaction for the surfaced switches, one atomic write of one `config.json` for the
   * gates, made inside that transaction so either both land or neither does. The config file is
   * locked, read and its new text computed before the transaction, so a file another process
   * holds or broke stops the write before anything changed.
   */
  private async write(at: Resolution, plans: readonly Plan[]): Promise<{ written: boolean; errors: LoadoutError[] }> {
    const surfaced: SurfacedChange[] = [];
    const gates: GateChange[] = [];
    for (const plan of plans) {
      const { kind, id, plugin } = plan.entry;
      if (plan.enabled !== undefined) surfaced.push({ kind, id, scope: at.project, surfaced: plan.enabled, plugin });
      for (const [gate, value] of plan.gates) gates.push({ kind, id, gate, value });
    }
    let written = false;
    try {
      if (gates.length === 0) {
        if (surfaced.length > 0) await this.store.applySurfaced(surfaced);
        return { written: surfaced.length > 0, errors: [] };
      }
      // Gates go to the scope's own file: the project's `.agents/config.json`, else the owner's.
      const rootDir = (at.projectRoot ?? at.ownerRoot).dir;
      await withConfigLock(path.join(rootDir, CONFIG_FILE), async () => {
        const rewrite = planGateRewrite(rootDir, gates);
        // The config file is written inside the surfaced transaction: if the write fails, the
        // switches roll back with it, so a request lands whole or not at all.
        await this.store.applySurfaced(surfaced, () => writeFileAtomicSync(rewrite.file, rewrite.text));
        written = true;
      });
      return { written, errors: [] };
    } catch (error) {
      // Reported as itself, code and cause kept: a locked or broken config.json, a database error.
      return { written, errors: [isLoadoutError(error) ? error : new StateWriteFailedError(error)] };
    }
  }

  private async resolveAt(project: string | null): Promise<Resolution> {
    const floors = new Map<string, InstallFloor>();
    for (const plugin of this.plugins.listInstalledPlugins()) floors.set(plugin.name, plugin.enabled ? 'installed' : 'plugin-disabled');
    const roots = this.loader.buildRoots(project, { includeDisabled: true });
    const projectRoot = roots.find((root) => root.level === 'project') ?? null;
    const ownerRoot = roots.find((root) => root.level === 'global' && root.plugin === null);
    if (ownerRoot === undefined) throw new WiringError("the session loader built no owner's root for the state resolver");
    const projectConfig = projectRoot === null ? null : readGateConfig(projectRoot.dir);
    const globalConfig = readGateConfig(ownerRoot.dir);
    const surfacedValues = await this.store.surfacedMap(project);
    const floorOf = (record: CapabilityRecord): InstallFloor =>
      record.plugin === null ? 'installed' : (floors.get(record.plugin) ?? 'plugin-not-installed');

    const scan = this.loader.scanRoots(roots);
    const entries: CapabilityStateEntry[] = [];
    const enabledWinners: CapabilityRecord[] = [];
    const pending: { winner: CapabilityRecord; entry: CapabilityStateEntry }[] = [];
    const kinds = [...scan.records.keys()];
    for (const [kind, records] of scan.records) {
      // The winner is the copy a session would show: the first one in a root it reads. Only a
      // capability that no enabled root holds is represented by a disabled plugin's copy.
      const { winners, shadowedBy } = shadowRecords(records, { isRead: (record) => floorOf(record) === 'installed' });
      const setAside = new Map<CapabilityRecord, CapabilityRecord[]>();
      for (const record of records) {
        const winner = shadowedBy.get(record);
        if (winner === undefined) continue;
        const list = setAside.get(winner);
        if (list === undefined) setAside.set(winner, [record]);
        else list.push(record);
      }
      for (const winner of winners) {
        const floor = floorOf(winner);
        const { surfaced, decidedBy } = decideSurfaced(floor, surfacedValues.get(`${kind}/${collisionKey(winner.id)}`));
        const enabled = floor === 'installed' && surfaced;
        const gates: Record<string, GateState> = {};
        for (const [gate, declared] of Object.entries(winner.gates)) {
          const decided = decideGate(kind, winner.id, gate, declared, projectConfig, globalConfig);
          gates[gate] = { configured: decided.configured, active: enabled && decided.configured, decidedBy: decided.decidedBy };
        }
        const gateStates = Object.values(gates);
        if (enabled) enabledWinners.push(winner);
        pending.push({
          winner,
          entry: {
            kind,
            id: winner.id,
            name: winner.name,
            path: winner.path,
            level: winner.level,
            plugin: winner.plugin,
            installed: floor !== 'plugin-not-installed',
            surfaced,
            enabled,
            gates,
            active: enabled && (gateStates.length === 0 || gateStates.some((gate) => gate.active)),
            decidedBy,
            held: null,
            shadowed: (setAside.get(winner) ?? []).map((record) => ({ level: record.level, plugin: record.plugin, path: record.path })),
          },
        });
      }
    }
    // The same holds a session of this scope puts on what is on: shown, with why, never active.
    const sessionHolders = await Promise.all(this.holders.map((holder) => holder.forSession({ project, roots })));
    const holds = new Map(sessionHolders.flatMap((holder) => [...holder(enabledWinners)]));
    for (const { winner, entry } of pending) {
      const hold = holds.get(winner);
      entries.push(hold === undefined ? entry : { ...entry, active: false, decidedBy: hold.decidedBy, held: hold.reason });
    }
    const byKey = new Map(entries.map((entry) => [`${entry.kind}/${collisionKey(entry.id)}`, entry]));
    return { project, entries, byKey, kinds, projectRoot, ownerRoot };
  }
}

function projectOf(scope: StateScope): string | null {
  const { project } = parseStateScope(scope);
  return project === undefined || project === null ? null : SessionLoader.resolveProject(project);
}

/** Checks every request against the state as it stands; any error means nothing is written. */
function validate(at: Resolution, requests: readonly DesiredCapability[]): { plans: Plan[]; errors: LoadoutError[] } {
  const errors: LoadoutError[] = [];
  const refuse = (code: string, message: string): void => {
    errors.push(new StateRequestRefusedError(code, message));
  };
  const plans = new Map<string, Plan>();
  for (const request of requests) {
    const kind = at.kinds.find((known) => known === request.kind.toLowerCase());
    if (kind === undefined) {
      refuse('STATE_KIND_UNKNOWN', `unknown capability kind "${clip(request.kind)}" (kinds: ${at.kinds.join(', ')})`);
      continue;
    }
    const key = `${kind}/${collisionKey(request.id)}`;
    const entry = at.byKey.get(key);
    if (entry === undefined) {
      refuse(
        'STATE_CAPABILITY_UNKNOWN',
        `unknown capability ${kind}/${clip(request.id)}${at.project === null ? '' : ` in project ${at.project}`}`,
      );
      continue;
    }
    const label = `${entry.kind}/${entry.id}`;
    const plan = plans.get(key) ?? { entry, enabled: undefined, gates: new Map<string, boolean>() };
    plans.set(key, plan);

    if (request.enabled !== undefined) {
      const enabled = parseSwitch(request.enabled);
      if (enabled === null) {
        refuse('STATE_VALUE_INVALID', `${label}: enabled must be on or off, not ${describe(request.enabled)}`);
      } else if (plan.enabled !== undefined && plan.enabled !== enabled) {
        refuse('STATE_REQUEST_CONFLICT', `${label}: asked to be both enabled and disabled`);
      } else if (enabled && !entry.installed) {
        refuse('STATE_PLUGIN_NOT_INSTALLED', `cannot enable ${label}: its plugin "${entry.plugin}" is not installed`);
      } else if (enabled && entry.decidedBy === 'plugin-disabled') {
        refuse(
          'STATE_PLUGIN_DISABLED',
          `cannot enable ${label}: it comes from plugin "${entry.plugin}", which is disabled; enable the plugin first`,
        );
      } else {
        plan.enabled = enabled;
      }
    }

    for (const [asked, raw] of Object.entries(request.gates ?? {})) {
      const gate = Object.keys(entry.gates).find((declared) => declared.toLowerCase() === asked.toLowerCase());
      if (gate === undefined) {
        const declared = Object.keys(entry.gates);
        refuse(
          'STATE_GATE_UNDECLARED',
          `${label}: gate "${clip(asked)}" is not declared (${declared.length === 0 ? 'it declares no gates' : `declared: ${declared.join(', ')}`})`,
        );
        continue;
      }
      const value = parseSwitch(raw);
      if (value === null) {
        refuse('STATE_VALUE_INVALID', `${label}: gate "${gate}" must be on or off, not ${describe(raw)}`);
      } else if (plan.gates.has(gate) && plan.gates.get(gate) !== value) {
        refuse('STATE_REQUEST_CONFLICT', `${label}: gate "${gate}" asked to be both on and off`);
      } else {
        plan.gates.set(gate, value);
      }
    }
  }
  return { plans: [...plans.values()], errors };
}

/** Assert-and-report: what the state reads back as, wherever it is not what was asked. */
function divergences(after: Resolution, plans: readonly Plan[]): LoadoutError[] {
  const errors: LoadoutError[] = [];
  const diverged = (message: string): void => {
    errors.push(new StateDivergedError(message));
  };
  for (const plan of plans) {
    const label = `${plan.entry.kind}/${plan.entry.id}`;
    const entry = after.byKey.get(`${plan.entry.kind}/${collisionKey(plan.entry.id)}`);
    if (entry === undefined) {
      diverged(`${label} no longer exists after the write`);
      continue;
    }
    if (plan.enabled !== undefined && entry.enabled !== plan.enabled) {
      diverged(
        `failed to ${plan.enabled ? 'enable' : 'disable'} ${label}: still ${entry.enabled ? 'enabled' : 'disabled'} after the write (decided by ${entry.decidedBy})`,
      );
    }
    for (const [gate, value] of plan.gates) {
      const state = entry.gates[gate];
      if (state === undefined) diverged(`${label}: gate "${gate}" is no longer declared after the write`);
      else if (state.configured !== value) {
        diverged(
          `failed to turn gate "${gate}" of ${label} ${onOff(value)}: still ${onOff(state.configured)} (decided by ${state.decidedBy})`,
        );
      }
    }
  }
  return errors;
}

/** Enabled with every gate off: still listed and costing context, but doing nothing. */
function presentButDead(after: Resolution, plans: readonly Plan[]): string[] {
  const warnings: string[] = [];
  for (const plan of plans) {
    const entry = after.byKey.get(`${plan.entry.kind}/${collisionKey(plan.entry.id)}`);
    if (entry === undefined || !entry.enabled) continue;
    const gates = Object.keys(entry.gates);
    if (gates.length > 0 && !entry.active) {
      warnings.push(`${entry.kind}/${entry.id} is enabled but every gate is off (${gates.join(', ')}): present but dead`);
    }
  }
  return warnings;
}

function onOff(value: boolean): string {
  return value ? 'on' : 'off';
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `"${clip(value)}"` : clip(JSON.stringify(value) ?? String(value));
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

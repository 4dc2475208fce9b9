import type { GateDecidedBy, SurfacedDecidedBy } from './CapabilityStateEntry.js';
import type { SurfacedValues } from './CapabilityStateStore.js';
import type { GateConfig } from './GateConfig.js';

/** Where a capability stands against the install floor. */
export type InstallFloor = 'installed' | 'plugin-disabled' | 'plugin-not-installed';

/**
 * The one rule for the surfaced switch: below the install floor nothing stored can lift it; else
 * the project's override, else the global default, else on (so a fresh workspace shows everything).
 */
export function decideSurfaced(
  floor: InstallFloor,
  values: SurfacedValues | undefined,
): { surfaced: boolean; decidedBy: SurfacedDecidedBy } {
  if (floor !== 'installed') return { surfaced: false, decidedBy: floor };
  if (values?.project !== undefined) return { surfaced: values.project, decidedBy: 'project-override' };
  if (values?.global !== undefined) return { surfaced: values.global, decidedBy: 'global-default' };
  return { surfaced: true, decidedBy: 'declared-default' };
}

/** The one rule for a gate: the project's `config.json`, else the owner's, else the declared default. */
export function decideGate(
  kind: string,
  id: string,
  gate: string,
  declaredDefault: boolean,
  projectConfig: GateConfig | null,
  globalConfig: GateConfig | null,
): { configured: boolean; decidedBy: GateDecidedBy } {
  const fromProject = projectConfig?.configured(kind, id, gate);
  if (fromProject !== undefined) return { configured: fromProject, decidedBy: 'project-config' };
  const fromGlobal = globalConfig?.configured(kind, id, gate);
  if (fromGlobal !== undefined) return { configured: fromGlobal, decidedBy: 'global-config' };
  return { configured: declaredDefault, decidedBy: 'declared-default' };
}

import path from 'node:path';
import { Places, token } from '@loadout/kernel';
import { USAGE_HOOK_EVENTS, UsageHookConsent } from '@loadout/usage-hook';
import { inject, injectable } from 'tsyringe';
import { RuntimeUsageHookUnsupportedError, RuntimeUnknownError } from './RuntimeErrors.js';
import { RuntimePlanner } from './RuntimePlanner.js';

/** One runtime as `loadout usage hook` shows it. */
export interface UsageHookRuntimeReport {
  readonly runtime: string;
  /** Whether the owner has turned the hook on for it. */
  readonly on: boolean;
  /** The events it is written for there (Claude Code's names); empty where the runtime has no hooks Loadout writes. */
  readonly events: readonly string[];
  /** Why it cannot be written there; null when it can. */
  readonly unsupported: string | null;
}

export interface UsageHookReport {
  readonly runtimes: readonly UsageHookRuntimeReport[];
  /** The folder the hook appends to, one `<runtime>.jsonl` each. */
  readonly spool: string;
}

/**
 * `loadout usage hook on|off`: the owner's consent to Loadout's usage hook, per runtime, remembered
 * in the data folder. It writes nothing into a runtime itself: the next `apply` plans the entries
 * (or retires them); the hook program reads the same consent at each run, so off records nothing
 * from the moment it is said.
 */
export interface UsageHookSwitch {
  describe(): UsageHookReport;
  /** Turns the hook on or off for the named runtimes; none named: every runtime that has hooks. */
  turn(on: boolean, runtimes: readonly string[]): UsageHookReport;
}
export const UsageHookSwitch = token<UsageHookSwitch>('runtimes.usageHookSwitch');

@injectable()
export class DataFolderUsageHookSwitch implements UsageHookSwitch {
  constructor(
    @inject(Places) private readonly places: Places,
    @inject(RuntimePlanner) private readonly planner: RuntimePlanner,
  ) {}

  describe(): UsageHookReport {
    const consent = UsageHookConsent.read(this.places.dataDir);
    return {
      runtimes: this.planner.adapters().map((adapter) => {
        const hook = adapter.documents?.hook;
        const unsupported =
          hook === undefined ? `where ${adapter.name} reads hooks is not confirmed` : typeof hook === 'string' ? hook : null;
        return {
          runtime: adapter.name,
          on: consent.isOn(adapter.name),
          events:
            typeof hook === 'object' ? USAGE_HOOK_EVENTS.map(({ event }) => event).filter((event) => hook.events[event] !== undefined) : [],
          unsupported,
        };
      }),
      spool: path.join(UsageHookConsent.usageDir(this.places.dataDir), 'spool'),
    };
  }

  turn(on: boolean, runtimes: readonly string[]): UsageHookReport {
    const known = this.describe().runtimes;
    const names = known.map((entry) => entry.runtime);
    for (const name of runtimes) {
      const entry = known.find((candidate) => candidate.runtime === name);
      if (entry === undefined) throw new RuntimeUnknownError(name, names);
      // Turning off is always allowed: it is how an entry of a runtime that lost its hooks is forgotten.
      if (on && entry.unsupported !== null) throw new RuntimeUsageHookUnsupportedError(name, entry.unsupported);
    }
    const chosen =
      runtimes.length > 0 ? runtimes : known.filter((entry) => on === false || entry.unsupported === null).map((entry) => entry.runtime);
    UsageHookConsent.read(this.places.dataDir).with(chosen, on);
    return this.describe();
  }
}

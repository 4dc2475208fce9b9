import { contribute, type Registration, resolve } from '@loadout/kernel';
import { UsageListings, UsageStore } from '@loadout/usage';
import { claudeCodeAdapter } from './adapters/claudeCodeAdapter.js';
import { codexAdapter } from './adapters/codexAdapter.js';
import { copilotCliAdapter, copilotVsCodeAdapter } from './adapters/copilotAdapters.js';
import { auggieAdapter, crushAdapter, geminiCliAdapter, kiloCodeAdapter, qwenCodeAdapter } from './adapters/geminiFamilyAdapters.js';
import { gooseAdapter } from './adapters/gooseAdapter.js';
import { openCodeAdapter } from './adapters/openCodeAdapter.js';
import {
  ampAdapter,
  antigravityAdapter,
  antigravityCliAdapter,
  clineAdapter,
  cursorAdapter,
  windsurfAdapter,
} from './adapters/unconfirmedAdapters.js';
import { qoderCliAdapter } from './adapters/qoderCliAdapter.js';
import { zedAdapter } from './adapters/zedAdapter.js';
import { ListingBudget, PlannedListingBudget } from './listing/ListingBudget.js';
import { LedgerListingUseReader, ListingUseReader } from './listing/ListingUses.js';
import { PlannedUsageListings } from './listing/PlannedUsageListings.js';
import { type RuntimeAdapter, RuntimeAdapters } from './RuntimeAdapter.js';
import { RuntimeApplier, SkillRuntimeApplier } from './RuntimeApplier.js';
import { RuntimeEnvironment, runtimeEnvironmentFrom } from './RuntimeEnvironment.js';
import { RuntimePlanner, SkillRuntimePlanner } from './RuntimePlanner.js';
import { DataFolderRuntimeChooser, RuntimeChooser } from './RuntimeSelection.js';
import { DataFolderUsageHookSwitch, UsageHookSwitch } from './UsageHookSwitch.js';

/** Every runtime Loadout knows, in the order they are listed and planned. */
export const KNOWN_ADAPTERS: readonly RuntimeAdapter[] = [
  claudeCodeAdapter,
  codexAdapter,
  copilotVsCodeAdapter,
  copilotCliAdapter,
  openCodeAdapter,
  gooseAdapter,
  cursorAdapter,
  windsurfAdapter,
  ampAdapter,
  antigravityAdapter,
  antigravityCliAdapter,
  geminiCliAdapter,
  qwenCodeAdapter,
  crushAdapter,
  zedAdapter,
  kiloCodeAdapter,
  auggieAdapter,
  clineAdapter,
  qoderCliAdapter,
];

/**
 * Registers the runtime adapters (one contribution each), the planner and the applier; their routes
 * (`runtimeRoutes`) are declared on the module beside this later part. The
 * runtimes' folders are read from the process environment each time they are asked for, so
 * `HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME` and the others are honoured as the runtimes honour them.
 */
export const runtimesModule: Registration = (container) => {
  for (const adapter of KNOWN_ADAPTERS) contribute(container, RuntimeAdapters, adapter);
  container.register(RuntimeEnvironment, { useFactory: () => runtimeEnvironmentFrom(process.env) });
  container.register(RuntimePlanner, { useClass: SkillRuntimePlanner });
  container.register(RuntimeApplier, { useClass: SkillRuntimeApplier });
  container.register(RuntimeChooser, { useClass: DataFolderRuntimeChooser });
  container.register(UsageHookSwitch, { useClass: DataFolderUsageHookSwitch });
  container.register(ListingBudget, { useClass: PlannedListingBudget });
  // The ledger ranks listings where the client ranks by recent use, and the ledger's report says
  // how each skill is listed; without the usage module the listing is planned unranked.
  container.register(ListingUseReader, {
    useFactory: (c) => new LedgerListingUseReader(() => (c.isRegistered(UsageStore, true) ? resolve(c, UsageStore) : null)),
  });
  container.register(UsageListings, { useClass: PlannedUsageListings });
};

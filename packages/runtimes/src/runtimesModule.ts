import { contribute, type LoadoutModule } from '@loadout/kernel';
import { antigravityAdapter } from './adapters/antigravityAdapter.js';
import { claudeCodeAdapter } from './adapters/claudeCodeAdapter.js';
import { codexAdapter } from './adapters/codexAdapter.js';
import { RuntimeAdapters } from './RuntimeAdapter.js';
import { RuntimeApplier, SkillRuntimeApplier } from './RuntimeApplier.js';
import { RuntimeEnvironment, runtimeEnvironmentFrom } from './RuntimeEnvironment.js';
import { RuntimePlanner, SkillRuntimePlanner } from './RuntimePlanner.js';

/**
 * Registers the runtime adapters (one contribution each), the planner and the applier. The
 * runtimes' folders are read from the process environment each time they are asked for, so
 * `HOME`, `CLAUDE_CONFIG_DIR` and `CODEX_HOME` are honoured as the runtimes honour them.
 */
export const runtimesModule: LoadoutModule = (container) => {
  contribute(container, RuntimeAdapters, claudeCodeAdapter);
  contribute(container, RuntimeAdapters, codexAdapter);
  contribute(container, RuntimeAdapters, antigravityAdapter);
  container.register(RuntimeEnvironment, { useFactory: () => runtimeEnvironmentFrom(process.env) });
  container.register(RuntimePlanner, { useClass: SkillRuntimePlanner });
  container.register(RuntimeApplier, { useClass: SkillRuntimeApplier });
};

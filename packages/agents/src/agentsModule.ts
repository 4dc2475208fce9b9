import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { agentKind } from './agentKind.js';

/** Registers the agent kind (subagent definitions). */
export const agentsModule: LoadoutModule = {
  name: 'agents',
  now: (container) => {
    contribute(container, CapabilityKinds, agentKind);
  },
};

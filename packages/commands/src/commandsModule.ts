import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { commandKind } from './commandKind.js';

/** Registers the command kind (slash commands and custom prompts). */
export const commandsModule: LoadoutModule = {
  name: 'commands',
  now: (container) => {
    contribute(container, CapabilityKinds, commandKind);
  },
};

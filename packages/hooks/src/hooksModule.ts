import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { hookKind } from './hookKind.js';

/** Registers the hook kind. */
export const hooksModule: LoadoutModule = {
  name: 'hooks',
  now: (container) => {
    contribute(container, CapabilityKinds, hookKind);
  },
};

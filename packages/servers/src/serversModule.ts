import { CapabilityKinds, contribute, type LoadoutModule } from '@loadout/kernel';
import { serverKind } from './serverKind.js';

/** Registers the MCP server kind. */
export const serversModule: LoadoutModule = {
  name: 'servers',
  now: (container) => {
    contribute(container, CapabilityKinds, serverKind);
  },
};

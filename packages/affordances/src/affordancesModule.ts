import { CapabilityKinds, contribute, type LoadoutModule, SessionSections } from '@loadout/kernel';
import { affordanceKind } from './affordanceKind.js';

/** Characters the affordance block may take in an agent's context. */
export const AFFORDANCE_BLOCK_BUDGET = 6_000;

/** Registers the affordance kind and the session's `affordanceBlock`. */
export const affordancesModule: LoadoutModule = {
  name: 'affordances',
  now: (container) => {
    contribute(container, CapabilityKinds, affordanceKind);
    contribute(container, SessionSections, {
      key: 'affordanceBlock',
      render: (session) => session.renderBlock('Affordances', session.recordsOf('affordance'), AFFORDANCE_BLOCK_BUDGET),
    });
  },
};

import type { Registration } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { CapabilityStateService, StoredCapabilityStateService } from './CapabilityStateService.js';

/** The later part of {@link stateModule}: the resolver/writer service. */
export const stateServiceModule: Registration = (container) => {
  container.register(CapabilityStateService, { useClass: StoredCapabilityStateService }, { lifecycle: Lifecycle.Singleton });
};

import type { Registration } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { StoredTrustService, TrustService } from './TrustService.js';

/** The later part of {@link trustModule}: the owner's service. */
export const trustServiceModule: Registration = (container) => {
  container.register(TrustService, { useClass: StoredTrustService }, { lifecycle: Lifecycle.Singleton });
};

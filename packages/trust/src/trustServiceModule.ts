import type { LoadoutModule } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { StoredTrustService, TrustService } from './TrustService.js';

/** The later part of {@link trustModule}: the owner's service. */
export const trustServiceModule: LoadoutModule = (container) => {
  container.register(TrustService, { useClass: StoredTrustService }, { lifecycle: Lifecycle.Singleton });
};

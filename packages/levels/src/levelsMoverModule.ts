import type { Registration } from '@loadout/kernel';
import { CapabilityLevels, FileCapabilityLevels } from './CapabilityLevels.js';

/** The later part of {@link levelsModule}: the mover. */
export const levelsMoverModule: Registration = (container) => {
  container.register(CapabilityLevels, { useClass: FileCapabilityLevels });
};

export type { AffordanceRecord } from './affordanceKind.js';
export { affordancesModule } from './affordancesModule.js';

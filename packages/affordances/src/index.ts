export * from './affordanceKind.js';
export * from './affordancesModule.js';

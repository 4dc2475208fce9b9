export { CapabilityLevels, type ListedCapability, type TransferResult } from './CapabilityLevels.js';
export { rewriteMarkdownName } from './rewriteDocumentName.js';
export { type LevelEnd, parseLevelEndArgument, type TransferableKind } from './TransferRequest.js';
export type { TransferStep } from './transferStep.js';

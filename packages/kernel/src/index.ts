export { type CapabilityFilter, CapabilityFilters, type FilterResult, type SessionFilter, type SessionScope } from './CapabilityFilter.js';
export {
  type CapabilityHold,
  type CapabilityHolder,
  CapabilityHolds,
  CapabilityUntrustedError,
  refuseHeld,
  type SessionHolder,
  withHolds,
} from './CapabilityHold.js';
export {
  capabilityId,
  collisionKey,
  displayNameOf,
  MAX_ID_LENGTH,
  namesRecord,
  qualifiedId,
  slugify,
  splitQualifiedId,
} from './capabilityId.js';
export {
  type CapabilityKind,
  CapabilityKinds,
  type CapabilityRecord,
  type DraftRecord,
  type EntryScan,
  type KindDocument,
  type KindFolderEntry,
  type RunnableParts,
} from './CapabilityKind.js';
export { type ChangeStamp, ChangeStamps } from './ChangeStamp.js';
export { closeKernel, createKernel, type KernelOptions } from './createKernel.js';
export { loadLaterModules, type LoadoutModule, LoadoutModules, loadModules, type Registration } from './LoadoutModule.js';
export { declaredGates, parseSwitch } from './declaredGates.js';
export type { Diagnostic } from './Diagnostic.js';
export {
  findFrontmatter,
  type MarkdownDocument,
  MAX_DOCUMENT_BYTES,
  parseMarkdown,
  readJsonInside,
  readMarkdownInside,
  readTextInside,
} from './DocumentReader.js';
export { formatValidationError } from './formatValidationError.js';
export { exceedsJsonDepth, MAX_JSON_DEPTH } from './jsonDepth.js';
export { AnswerBudget, answerBytes, boundedJson, MAX_ANSWER_BYTES, MAX_BATCH_CALLS, responseTooLarge } from './answerBounds.js';
export { expandPlaceholders } from './expandPlaceholders.js';
export { WiringError } from './WiringError.js';
export { Places, resolvePlaces } from './Places.js';
export { type InstalledPlugin, PluginSource } from './PluginSource.js';
export { parseFlatMapping } from './parseFlatMapping.js';
export { type JsonShape, readJsonCapability } from './readJsonCapability.js';
export { readMarkdownCapability } from './readMarkdownCapability.js';
export type { DocumentRead } from './DocumentReads.js';
export { redactArguments, redactCredentials, redactSecrets } from './redactCredentials.js';
export { renderBlock, renderCapabilityBlock, type RenderedBlock } from './renderBlock.js';
export {
  type FolderKind,
  groupByKey,
  joinKinds,
  type KindParts,
  ScanSource,
  shadowKind,
  type ShadowedKind,
  type ShadowedScan,
} from './ScanSource.js';
export { visibleText } from './terminalText.js';
export { type Level, PROJECT_ROOT_FOLDER, type Root } from './Root.js';
export type { InlineDocument, RootLayout, RootLayoutSource } from './RootLayout.js';
export { type KindEntryScan, type KindFolderScan, readKindEntry, scanKindFolder, type StampedScan } from './scanKindFolder.js';
export { Session } from './Session.js';
export { type ListedRecord, SessionLoader } from './SessionLoader.js';
export { type SessionSection, SessionSections } from './SessionSection.js';
export { shadowRecords } from './shadowRecords.js';
export { contribute, resolve, resolveAll, token, type Token } from './token.js';
export { formatMarkdown } from './formatMarkdown.js';
export { isJsonObject, isTextWithin } from './plainJson.js';
export { plainFirstShape, zodShape } from './zodShape.js';
export { findProjectFolder } from './findProjectFolder.js';

export { serverDefinitionOf, type ServerRecord } from './ServerDefinition.js';
export { SecretStore } from './SecretStore.js';
export { readRedactedServerDocument } from './serverDocument.js';
export { serversModule } from './serversModule.js';

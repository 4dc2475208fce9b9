export { serverDefinitionOf, type ServerRecord } from './ServerDefinition.js';
export { readSecretFile, SECRET_NAME, SECRETS_FILE } from './secretFile.js';
export {
  SecretNameInvalidError,
  SecretNotFoundError,
  SecretStore,
  SecretStoreInvalidError,
  SecretValueInvalidError,
} from './SecretStore.js';
export { readRedactedServerDocument } from './serverDocument.js';
export { serversModule } from './serversModule.js';

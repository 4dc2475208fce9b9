export * from './ApiErrors.js';
export * from './ApiRoute.js';
export * from './requestSchemas.js';
export * from './RpcMethod.js';
export * from './ServerService.js';

export { RequestInvalidError } from './ApiErrors.js';
export {
  type ApiRoute,
  defineRoute,
  eventStream,
  type EventStream,
  EventStreamReply,
  type HttpMethod,
  HttpRoutes,
  jsonText,
  RawReply,
  rawResponse,
  reply,
  type RouteAccess,
  type RouteContext,
  RouteReply,
} from './ApiRoute.js';
export { type Resolved, resolveDependencies } from './dependencies.js';
export { IdParams, ListQuery, oneProject, parseRequest, projectPath, ProjectQuery, SessionQuery } from './requestSchemas.js';
export { defineRpcMethod, type RpcContext, type RpcMethod, RpcMethods } from './RpcMethod.js';
export { type ServerService, ServerServices, type ServiceStartReport, StaticAssetFolders, type StaticAssets } from './ServerService.js';
export { loadServedParts } from './ServedParts.js';

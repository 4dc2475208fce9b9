import { token } from '@loadout/kernel';

/** What a service says when the server starts: lines for people, and fields for `serve --json`. */
export interface ServiceStartReport {
  readonly lines: readonly string[];
  readonly json: Readonly<Record<string, unknown>>;
}

/**
 * Work that runs beside the HTTP server for as long as it serves (the job workers), contributed by
 * the package that owns it. `start` runs once the server holds the data folder's lock and before it
 * listens; `stop` runs after it stopped listening.
 *
 * @example
 * contribute(container, ServerServices, {
 *   name: 'jobs',
 *   start: async ({ log }) => ({ lines: [], json: { recovered: await workers.recover() } }),
 *   stop: () => workers.stop(),
 * });
 */
export interface ServerService {
  readonly name: string;
  start(context: { readonly log: (line: string) => void }): Promise<ServiceStartReport>;
  stop(): Promise<void>;
}
export const ServerServices = token<ServerService>('api.serverServices');

/**
 * A folder of static files the server serves (the capability screen), contributed by the package
 * that ships them. `index.html` is also served at `/`.
 */
export interface StaticAssets {
  readonly dir: string;
  /** The Content-Security-Policy of the HTML pages. */
  readonly contentSecurityPolicy: string;
}
export const StaticAssetFolders = token<StaticAssets>('api.staticAssetFolders');

// The JSON the capability screen reads and sends, in one place, taken from the packages that
// produce it: a change to a record, a route's answer or a method's result on the server side
// fails `pnpm typecheck` on the screen (packages/web/public, checked with checkJs) until the
// screen follows. Types only: nothing here reaches the browser.
import type { AffordanceRecord } from '@loadout/affordances';
import type { Job, JobStatus, NotificationInbox, StoredNotification } from '@loadout/jobs';
import type { Diagnostic, ListedRecord, Root } from '@loadout/kernel';
import type { CapabilityLevels, LevelEnd } from '@loadout/levels';
import type { NotificationCatalogueRecord } from '@loadout/notifications';
import type { PluginManager } from '@loadout/plugins';
import type { ServerRecord } from '@loadout/servers';
import type { SkillRecord } from '@loadout/skills';
import type { CapabilityStateService, DesiredCapability } from '@loadout/state';
import type { TaskRecord, TaskStore } from '@loadout/tasks';
import type { TrustService } from '@loadout/trust';

export type { Diagnostic, Job, JobStatus, Root, StoredNotification, TaskRecord };

/** `GET /api/session` and `loadout session --json`: one key per registered kind, one per section. */
export interface SessionJson {
  readonly project: string | null;
  readonly roots: readonly Root[];
  readonly skills: readonly SkillRecord[];
  readonly affordances: readonly AffordanceRecord[];
  readonly notifications: readonly NotificationCatalogueRecord[];
  readonly servers: readonly ServerRecord[];
  readonly tasks: readonly TaskRecord[];
  readonly skillsBlock: string;
  readonly affordanceBlock: string;
  readonly diagnostics: readonly Diagnostic[];
}

export type PluginEntry = ReturnType<PluginManager['list']>[number];
export type CapabilityStateEntry = Awaited<ReturnType<CapabilityStateService['resolveCapabilityState']>>[number];
export type SetCapabilityStateResult = ReturnType<CapabilityStateService['setCapabilityState']>;
export type TransferResult = Awaited<ReturnType<CapabilityLevels['transfer']>>;
export type ListedCapability = ListedRecord;

/** What a route takes and answers. `params` fill the `:name` parts of the path. */
interface Route<Answer, Options extends RouteOptions = RouteOptions> {
  readonly answer: Answer;
  readonly options: Options;
}
export interface RouteOptions {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  readonly body?: unknown;
}
type ProjectQuery = { readonly project?: string | null };

/** Every REST route the screen calls, by `METHOD /path`, as the server contributes it. */
export interface Routes {
  'GET /api/session': Route<SessionJson, { query?: ProjectQuery }>;
  'GET /api/notifications': Route<ReturnType<NotificationInbox['list']>, { query?: { limit?: number; unread?: 'true' | 'false' } }>;
  'POST /api/notifications/:id/read': Route<ReturnType<NotificationInbox['markRead']>, { params: { id: number } }>;
  'GET /api/plugins': Route<PluginEntry[]>;
  'POST /api/plugins': Route<Awaited<ReturnType<PluginManager['install']>>, { body: { url: string; name?: string; ref?: string } }>;
  'POST /api/plugins/:name/update': Route<Awaited<ReturnType<PluginManager['update']>>[number], { params: { name: string } }>;
  'POST /api/plugins/:name/enable': Route<ReturnType<PluginManager['enable']>, { params: { name: string } }>;
  'POST /api/plugins/:name/disable': Route<ReturnType<PluginManager['disable']>, { params: { name: string } }>;
  'POST /api/plugins/:name/approve': Route<ReturnType<TrustService['approvePlugin']>, { params: { name: string }; body?: { commit?: string } }>;
  'POST /api/trust': Route<ReturnType<TrustService['trustProject']>, { body: { project: string } }>;
  'DELETE /api/plugins/:name': Route<ReturnType<PluginManager['uninstall']>, { params: { name: string } }>;
  'GET /api/tasks': Route<ReturnType<TaskStore['listTasks']>[number][], { query?: ProjectQuery }>;
  'POST /api/tasks': Route<ReturnType<TaskStore['createTask']>, { query?: ProjectQuery; body: NewTaskBody }>;
  'PUT /api/tasks/:dirName': Route<ReturnType<TaskStore['updateTask']>, { params: { dirName: string }; query?: ProjectQuery; body: TaskPatchBody }>;
  'DELETE /api/tasks/:dirName': Route<{ deleted: ReturnType<TaskStore['deleteTask']> }, { params: { dirName: string }; query?: ProjectQuery }>;
  'POST /api/tasks/:dirName/runs': Route<{ job: Pick<Job, 'id' | 'status'> }, { params: { dirName: string }; query?: ProjectQuery; body: { input?: unknown; project?: string | null } }>;
  'GET /api/jobs': Route<Job[], { query?: { limit?: number; status?: JobStatus } }>;
  'GET /api/jobs/:id': Route<Job, { params: { id: number } }>;
}

export type RouteKey = keyof Routes;

/** `POST /api/tasks` (the server checks the same fields with zod in packages/tasks). */
export interface NewTaskBody {
  readonly dirName: string;
  readonly name: string;
  readonly description: string;
  readonly implementation: { readonly filename: string; readonly content: string };
  readonly body?: string;
  readonly level?: 'global' | 'project';
  readonly timeoutSeconds?: number;
  readonly retries?: number;
  readonly project?: string | null;
}
export type TaskPatchBody = Partial<Pick<NewTaskBody, 'name' | 'description' | 'body' | 'implementation'>>;

/** The Server-Sent Events streams, by path, with each event's data. */
export interface Streams {
  '/api/notifications/stream': { notification: StoredNotification };
  '/api/jobs/:id/stream': {
    status: Pick<Job, 'id' | 'status' | 'attempts' | 'error'>;
    output: { stream: 'stdout' | 'stderr'; text: string };
    end: Job;
  };
}

export type TransferEnd = LevelEnd;

/** The JSON-RPC methods the screen calls at `POST /rpc`: params and result. */
export interface RpcMethods {
  'capability.state': { params: ProjectQuery; result: { capabilities: CapabilityStateEntry[] } };
  'capability.set': { params: { project?: string | null; capabilities: DesiredCapability[] }; result: SetCapabilityStateResult };
  'skills.list': { params: ProjectQuery; result: ListedCapability[] };
  'mcp.list': { params: ProjectQuery; result: ListedCapability[] };
  'skills.transfer': { params: { id: string; from: TransferEnd; to: TransferEnd }; result: TransferResult };
  'mcp.transfer': { params: { id: string; from: TransferEnd; to: TransferEnd }; result: TransferResult };
}

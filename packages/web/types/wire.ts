// The JSON the capability screen reads and sends, in one place, taken from the packages that
// produce it: a change to a record, a route's answer or a method's result on the server side
// fails `pnpm typecheck` on the screen (packages/web/public, checked with checkJs) until the
// screen follows. Types only: nothing here reaches the browser.
import type { AffordanceRecord } from '@loadout/affordances';
import type { AgentRecord } from '@loadout/agents';
import type { CommandRecord } from '@loadout/commands';
import type { HookRecord } from '@loadout/hooks';
import type { InboxQuery, Job, JobListQuery, JobStatus, NotificationInbox, RunBody, StoredNotification } from '@loadout/jobs';
import type { Diagnostic, ListedRecord, Root } from '@loadout/kernel';
import type { CapabilityLevels, LevelEnd } from '@loadout/levels';
import type { NotificationCatalogueRecord } from '@loadout/notifications';
import type {
  AddMarketplaceBody,
  InstallPluginBody,
  MarketplaceHit,
  MarketplaceSearchQuery,
  MarketplaceSummary,
  PluginManager,
} from '@loadout/plugins';
import type {
  ApplyResult,
  BudgetReport,
  RetiredListing,
  RetiredReport,
  RuntimeApplyBody,
  RuntimeChooseBody,
  RuntimeWhyQuery,
  SelectionReport,
  WhyReport,
} from '@loadout/runtimes';
import type { ServerRecord } from '@loadout/servers';
import type { SkillRecord } from '@loadout/skills';
import type { CapabilityStateService, SetCapabilityStateParams } from '@loadout/state';
import type { NewTaskBody, TaskPatchBody as TaskPatchBodySchema, TaskRecord, TaskStore } from '@loadout/tasks';
import type { ConsentEntry, PluginApproveBody, PluginReview, ProjectReview, TrustProjectBody, TrustService } from '@loadout/trust';
import type { UsageReport, UsageRouteQuery } from '@loadout/usage';

export type {
  ApplyResult,
  ConsentEntry,
  Diagnostic,
  Job,
  JobStatus,
  NewTaskBody,
  PluginReview,
  ProjectReview,
  RetiredListing,
  Root,
  StoredNotification,
  TaskRecord,
  WhyReport,
};

/** A schema's named fields without its catch-all (the screen sends only those it names). */
type NamedFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
/** A query schema's input as the screen passes it: a value the schema coerces (a number) may be given as it is. */
type QueryInput<T> = { [K in keyof T]?: unknown extends T[K] ? string | number : T[K] };

/** `PUT /api/tasks/:dirName`: the fields the screen edits; the server takes back read-only fields unchanged. */
export type TaskPatchBody = NamedFields<TaskPatchBodySchema>;

/** `GET /api/session` and `loadout session --json`: one key per registered kind, one per section. */
export interface SessionJson {
  readonly project: string | null;
  readonly roots: readonly Root[];
  readonly skills: readonly SkillRecord[];
  readonly affordances: readonly AffordanceRecord[];
  readonly notifications: readonly NotificationCatalogueRecord[];
  readonly servers: readonly ServerRecord[];
  readonly tasks: readonly TaskRecord[];
  readonly agents: readonly AgentRecord[];
  readonly commands: readonly CommandRecord[];
  readonly hooks: readonly HookRecord[];
  readonly skillsBlock: string;
  readonly affordanceBlock: string;
  readonly diagnostics: readonly Diagnostic[];
}

export type PluginEntry = ReturnType<PluginManager['list']>[number];
export type CapabilityStateEntry = Awaited<ReturnType<CapabilityStateService['resolveCapabilityState']>>[number];
export type SetCapabilityStateResult = ReturnType<CapabilityStateService['setCapabilityState']>;
export type TransferResult = Awaited<ReturnType<CapabilityLevels['transfer']>>;
export type ListedCapability = ListedRecord;

/**
 * What a route takes and answers. `params` fill the `:name` parts of the path. Bodies and queries
 * are the input types of the zod schemas the routes declare (`z.input`), exported by the package
 * that owns each route, so a schema's change reaches the screen's type check without a second
 * declaration here.
 */
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
  'GET /api/usage': Route<UsageReport, { query?: QueryInput<UsageRouteQuery> }>;
  'GET /api/notifications': Route<ReturnType<NotificationInbox['list']>, { query?: QueryInput<InboxQuery> }>;
  'POST /api/notifications/:id/read': Route<ReturnType<NotificationInbox['markRead']>, { params: { id: number } }>;
  'GET /api/plugins': Route<PluginEntry[]>;
  'POST /api/plugins': Route<Awaited<ReturnType<PluginManager['install']>>, { body: InstallPluginBody }>;
  'POST /api/plugins/:name/update': Route<Awaited<ReturnType<PluginManager['update']>>[number], { params: { name: string } }>;
  'POST /api/plugins/:name/enable': Route<ReturnType<PluginManager['enable']>, { params: { name: string } }>;
  'POST /api/plugins/:name/disable': Route<ReturnType<PluginManager['disable']>, { params: { name: string } }>;
  'POST /api/plugins/:name/approve': Route<
    ReturnType<TrustService['approvePlugin']>,
    { params: { name: string }; body?: PluginApproveBody }
  >;
  'POST /api/trust': Route<ReturnType<TrustService['trustProject']>, { body: TrustProjectBody }>;
  'DELETE /api/plugins/:name': Route<ReturnType<PluginManager['uninstall']>, { params: { name: string } }>;
  'GET /api/marketplaces': Route<MarketplaceSummary[]>;
  'POST /api/marketplaces': Route<MarketplaceSummary, { body: AddMarketplaceBody }>;
  'GET /api/marketplaces/search': Route<MarketplaceHit[], { query?: MarketplaceSearchQuery }>;
  'GET /api/tasks': Route<ReturnType<TaskStore['listTasks']>[number][], { query?: ProjectQuery }>;
  'POST /api/tasks': Route<ReturnType<TaskStore['createTask']>, { query?: ProjectQuery; body: NewTaskBody }>;
  'PUT /api/tasks/:dirName': Route<
    ReturnType<TaskStore['updateTask']>,
    { params: { dirName: string }; query?: ProjectQuery; body: TaskPatchBody }
  >;
  'DELETE /api/tasks/:dirName': Route<
    { deleted: ReturnType<TaskStore['deleteTask']> },
    { params: { dirName: string }; query?: ProjectQuery }
  >;
  'POST /api/tasks/:dirName/runs': Route<
    { job: Pick<Job, 'id' | 'status'> },
    { params: { dirName: string }; query?: ProjectQuery; body: RunBody }
  >;
  'GET /api/jobs': Route<Job[], { query?: QueryInput<JobListQuery> }>;
  'GET /api/jobs/:id': Route<Job, { params: { id: number } }>;
  'POST /api/jobs/:id/cancel': Route<{ job: { id: number; status: JobStatus; was: JobStatus } }, { params: { id: number } }>;
  'GET /api/runtimes': Route<ApplyResult, { query?: ProjectQuery }>;
  'POST /api/runtimes/apply': Route<ApplyResult, { body: RuntimeApplyBody }>;
  'GET /api/runtimes/chosen': Route<SelectionReport>;
  'PUT /api/runtimes/chosen': Route<SelectionReport, { body: RuntimeChooseBody }>;
  'GET /api/runtimes/why': Route<WhyReport, { query: RuntimeWhyQuery }>;
  // The screen asks for every runtime of the project in view; `runtime` (repeatable) narrows it for other clients.
  'GET /api/runtimes/budget': Route<BudgetReport, { query?: ProjectQuery }>;
  'GET /api/runtimes/trash': Route<RetiredListing>;
  'POST /api/runtimes/trash/:id/restore': Route<{ restored: RetiredReport }, { params: { id: string } }>;
  'GET /api/plugins/:name/review': Route<PluginReview, { params: { name: string } }>;
  'GET /api/trust/review': Route<ProjectReview, { query: { project: string } }>;
}

export type RouteKey = keyof Routes;

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
  'capability.set': { params: SetCapabilityStateParams; result: SetCapabilityStateResult };
  'skills.list': { params: ProjectQuery; result: ListedCapability[] };
  'mcp.list': { params: ProjectQuery; result: ListedCapability[] };
  'skills.transfer': { params: { id: string; from: TransferEnd; to: TransferEnd }; result: TransferResult };
  'mcp.transfer': { params: { id: string; from: TransferEnd; to: TransferEnd }; result: TransferResult };
}

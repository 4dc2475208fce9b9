import { type ApiRoute, defineRoute, ProjectQuery, projectPath } from '@loadout/api';
import { z } from 'zod';
import { explainSkill } from './explainSkill.js';
import { ListingBudget } from './listing/ListingBudget.js';
import { RuntimeApplier } from './RuntimeApplier.js';
import { RuntimePlanner } from './RuntimePlanner.js';
import { RuntimeChooser } from './RuntimeSelection.js';

/** A runtime's name as adapters spell it (`claude-code`); an unknown one is `RUNTIME_UNKNOWN` from the planner. */
const runtimeName = z.string().min(1).max(64);

/** `POST /api/runtimes/apply`: the project in view, and which runtimes (every one when left out). */
const ApplyBody = z.strictObject({
  project: projectPath.nullable().optional(),
  runtimes: z.array(runtimeName).max(32).optional(),
});
/** What `POST /api/runtimes/apply` takes, as a client writes it. */
export type RuntimeApplyBody = z.input<typeof ApplyBody>;

/** `PUT /api/runtimes/chosen`: the runtimes an apply that names none writes; null goes back to the detected ones. */
const ChooseBody = z.strictObject({ runtimes: z.array(runtimeName).max(32).nullable() });
export type RuntimeChooseBody = z.input<typeof ChooseBody>;

/** `GET /api/runtimes/why?name=&project=` */
const WhyQuery = z.object({ name: z.string().min(1).max(255), project: projectPath.optional() });
export type RuntimeWhyQuery = z.input<typeof WhyQuery>;

/** `GET /api/runtimes/budget?runtime=&project=`: one runtime (repeat `runtime` for more; every one when left out). */
const BudgetQuery = z.strictObject({
  runtime: z.union([runtimeName, z.array(runtimeName).max(32)]).optional(),
  project: projectPath.optional(),
});

/** A trash entry's id, as `loadout apply restore` lists it. */
const TrashParams = z.strictObject({ id: z.string().min(1).max(255) });

const deps = { applier: RuntimeApplier };

/**
 * The runtimes, as `loadout apply` and `loadout why` see them: the plan (what each runtime would
 * get, and what keeps it from getting it), applying that plan, and the trash of retired entries.
 * Every one needs the token: the plan reads the owner's home folder and the runtimes'
 * configuration, and applying writes there. Applying is the CLI's own `RuntimeApplier.apply`, so
 * it plans afresh and writes under the same lock; a plan shown earlier is never replayed.
 */
export const runtimeRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/runtimes',
    access: 'token',
    deps,
    query: ProjectQuery,
    // `apply --check`: writes nothing; `upToDate` says whether the folders already match, and
    // `selection` which runtimes are detected and chosen.
    handle: ({ query }, { applier }) => applier.apply({ project: query.project ?? null, mode: 'check' }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/runtimes/apply',
    access: 'token',
    deps,
    body: ApplyBody,
    // The MCP bridge entries stay as the CLI last left them (`--mcp-bridge` is a CLI decision).
    handle: ({ body }, { applier }) => applier.apply({ project: body.project ?? null, runtimes: body.runtimes ?? [], mode: 'apply' }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runtimes/chosen',
    access: 'token',
    deps: { chooser: RuntimeChooser },
    handle: (_input, { chooser }) => chooser.describe(),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/runtimes/chosen',
    access: 'token',
    deps: { chooser: RuntimeChooser },
    body: ChooseBody,
    // An unknown name is RUNTIME_UNKNOWN and nothing is kept.
    handle: ({ body }, { chooser }) => chooser.choose(body.runtimes),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runtimes/why',
    access: 'token',
    deps: { planner: RuntimePlanner },
    query: WhyQuery,
    handle: ({ query }, { planner }, context) =>
      context.withSession(query.project, async (session) => explainSkill(await planner.plan(session), query.name)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runtimes/budget',
    access: 'token',
    deps: { budget: ListingBudget },
    query: BudgetQuery,
    // `loadout budget`: each runtime's prompt listing from the plan; an unknown runtime is RUNTIME_UNKNOWN.
    handle: ({ query }, { budget }, context) =>
      context.withSession(query.project, (session) =>
        budget.report(session, query.runtime === undefined ? [] : Array.isArray(query.runtime) ? query.runtime : [query.runtime]),
      ),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/runtimes/trash',
    access: 'token',
    deps,
    handle: (_input, { applier }) => applier.listRetired(),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/runtimes/trash/:id/restore',
    access: 'token',
    deps,
    params: TrashParams,
    handle: ({ params }, { applier }) => applier.restore(params.id),
  }),
];

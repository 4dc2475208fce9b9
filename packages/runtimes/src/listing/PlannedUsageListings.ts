import { SessionLoader } from '@loadout/kernel';
import type { UsageListedStatus, UsageListingSnapshot, UsageListings } from '@loadout/usage';
import { inject, injectable } from 'tsyringe';
import { RuntimePlanner } from '../RuntimePlanner.js';
import { ListingBudget } from './ListingBudget.js';

/**
 * The ledger's `listed`, from the listing-budget planner: the project's session planned as
 * `loadout budget` plans it (the runtimes whose listing rules are measured, or the one runtime the
 * report is narrowed to) and each listed skill's status. A runtime the planner does not know (an
 * MCP client's own name) has no predicted listing. A plan that fails is a finding of the report.
 *
 * Reports asked while the same listing is being planned share that plan: the screen asks the
 * ledger on every visit to the capabilities view, and over thousands of skills a plan takes
 * seconds, so visits in quick succession would otherwise pile plans up on the server.
 */
@injectable()
export class PlannedUsageListings implements UsageListings {
  private readonly planning = new Map<string, Promise<UsageListingSnapshot>>();

  constructor(
    @inject(SessionLoader) private readonly sessions: SessionLoader,
    @inject(RuntimePlanner) private readonly planner: RuntimePlanner,
    @inject(ListingBudget) private readonly budget: ListingBudget,
  ) {}

  listings(project: string | null, runtime: string | null): Promise<UsageListingSnapshot> {
    const key = JSON.stringify([project, runtime]);
    let plan = this.planning.get(key);
    if (plan === undefined) {
      plan = this.plan(project, runtime).finally(() => this.planning.delete(key));
      this.planning.set(key, plan);
    }
    return plan;
  }

  private async plan(project: string | null, runtime: string | null): Promise<UsageListingSnapshot> {
    if (runtime !== null && !this.planner.adapters().some((adapter) => adapter.name === runtime)) return { runtimes: [], problem: null };
    try {
      // Kept for the plan, which reads every skill's SKILL.md whole.
      const session = await this.sessions.open({ project, keepDocuments: true });
      try {
        const report = await this.budget.report(session, runtime === null ? [] : [runtime]);
        return {
          runtimes: report.runtimes.flatMap(({ runtime: name, rules, listing }) =>
            listing.observed && rules.client !== null
              ? [
                  {
                    runtime: name,
                    client: rules.client,
                    skills: new Map(listing.entries.map((entry) => [entry.name.toLowerCase(), statusOf(entry.status)])),
                  },
                ]
              : [],
          ),
          problem: null,
        };
      } finally {
        session.dispose();
      }
    } catch (error) {
      return { runtimes: [], problem: `the listing could not be planned: ${(error as Error).message}` };
    }
  }
}

function statusOf(status: 'described' | 'name-only' | 'dropped'): UsageListedStatus {
  return status === 'dropped' ? 'not-listed' : status;
}

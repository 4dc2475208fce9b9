import { resolve, SessionLoader } from '@loadout/kernel';
import type { BudgetReport, ListingBudget, RuntimeBudget } from '@loadout/runtimes';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { table } from '../format.js';

interface BudgetOptions {
  runtime: string[];
  project?: string;
  json?: boolean;
}

/** How many of the costliest entries the text answer lists per runtime. */
const COSTLIEST_SHOWN = 10;

/**
 * `loadout budget [--runtime R]… [--project P] [--json]`: for each runtime, the exact skill listing
 * its prompt will hold once `apply` ran (described, by name only, dropped), what each entry costs,
 * the budget and how far over it; the costliest descriptions first and what to do. `pin NAME` and
 * `unpin NAME` keep the skills that must stay described. Plans like `apply --dry-run`; writes nothing
 * but the pins.
 */
export function registerBudgetCommand(program: Command, cli: CliContext): void {
  const budget = (): ListingBudget => resolve(cli.app(), cli.features.ListingBudget);
  const json = (command: Command): boolean => command.optsWithGlobals<{ json?: boolean }>().json === true;
  const command = program
    .command('budget')
    .description(
      "the skill listing each runtime's prompt will hold: which skills are described, by name only or dropped, and how far over its budget",
    )
    .option('--runtime <name>', 'only this runtime (repeatable); default: every one', (value: string, all: string[]) => [...all, value], [])
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (options: BudgetOptions) => {
      await cli.run(
        options.json === true,
        async () => {
          const session = await cli
            .app()
            .resolve(SessionLoader)
            // The plan reads every skill's SKILL.md whole: the open keeps what it read of them for it.
            .open({ project: cli.projectFor(options.project), keepDocuments: true });
          try {
            return await budget().report(session, options.runtime);
          } finally {
            session.dispose();
          }
        },
        formatBudget,
      );
    });
  command
    .command('pin')
    .argument('<name>', 'the skill name as runtimes list it')
    .description('keep this skill described: ranked first where a runtime ranks, and reported when it still is not (remembered)')
    .option('--json', 'print one JSON document')
    .action(async (name: string, _options: unknown, sub: Command) => {
      await cli.run(
        json(sub),
        () => budget().pin(name),
        ({ pins }) => `pinned: ${pins.join(', ')}`,
      );
    });
  command
    .command('unpin')
    .argument('<name>', 'a pinned skill name')
    .description('stop keeping this skill described')
    .option('--json', 'print one JSON document')
    .action(async (name: string, _options: unknown, sub: Command) => {
      await cli.run(
        json(sub),
        () => budget().unpin(name),
        ({ pins }) => (pins.length === 0 ? 'no skill is pinned' : `pinned: ${pins.join(', ')}`),
      );
    });
}

/** Per runtime: its summary line, the costliest entries, what could not be observed, what to do. */
export function formatBudget(report: BudgetReport): string {
  return report.runtimes.map((runtime) => formatRuntime(runtime)).join('\n\n');
}

function formatRuntime(runtime: RuntimeBudget): string {
  const lines = [runtime.summary];
  const { listing } = runtime;
  if (listing.observed && listing.entries.length > 0) {
    const costliest = [...listing.entries].sort((a, b) => b.fullCost - a.fullCost).slice(0, COSTLIEST_SHOWN);
    lines.push(
      table([
        ['SKILL', 'LISTED', `COST (${listing.unit})`, 'WHOLE', 'PINNED'],
        ...costliest.map((entry) => [
          entry.name,
          entry.status === 'described' && entry.shortened ? `described, shortened to ${entry.shownChars} characters` : entry.status,
          String(entry.cost),
          String(entry.fullCost),
          entry.pinned ? 'yes' : '-',
        ]),
      ]),
    );
  }
  if (runtime.rules.notObserved !== null && runtime.rules.observed) lines.push(`not observed: ${runtime.rules.notObserved}`);
  for (const advice of runtime.advice) lines.push(`- ${advice}`);
  return lines.join('\n');
}

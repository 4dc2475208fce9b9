import { resolve } from '@loadout/kernel';
import type { RuntimeChooser, SelectionReport } from '@loadout/runtimes';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { table } from '../format.js';

/**
 * `loadout runtimes` lists the agent runtimes Loadout knows, what of each is on this machine and
 * which `apply` writes; `use NAME…`, `add NAME…`, `drop NAME…` and `reset` change and remember the
 * choice (in the data folder's `config.json`).
 */
export function registerRuntimesCommand(program: Command, cli: CliContext): void {
  const chooser = (): RuntimeChooser => resolve(cli.app(), cli.features.RuntimeChooser);
  const json = (command: Command): boolean => command.optsWithGlobals<{ json?: boolean }>().json === true;
  const runtimes = program
    .command('runtimes')
    .description('the agent runtimes Loadout knows: which are on this machine, which are chosen, which apply writes')
    .option('--json', 'print one JSON document')
    .action(async (options: { json?: boolean }) => {
      await cli.run(options.json === true, () => chooser().describe(), formatSelection);
    });
  runtimes
    .command('use')
    .argument('<names...>', 'the runtimes apply writes from now on')
    .description('choose exactly these runtimes for apply (remembered; `loadout runtimes reset` goes back to the detected ones)')
    .option('--json', 'print one JSON document')
    .action(async (names: string[], _options: unknown, command: Command) => {
      await cli.run(json(command), () => chooser().choose(names), formatSelection);
    });
  const changes = [
    {
      how: 'add',
      argument: 'runtimes to write besides those apply writes now',
      description: 'add runtimes to those apply writes (remembered)',
    },
    {
      how: 'drop',
      argument: 'runtimes apply no longer writes',
      description: 'stop writing these runtimes (remembered); what was written for them stays until removed',
    },
  ] as const;
  for (const change of changes) {
    runtimes
      .command(change.how)
      .argument('<names...>', change.argument)
      .description(change.description)
      .option('--json', 'print one JSON document')
      .action(async (names: string[], _options: unknown, command: Command) => {
        await cli.run(json(command), () => chooser().change(change.how, names), formatSelection);
      });
  }
  runtimes
    .command('reset')
    .description('forget the choice: apply writes the runtimes detected on this machine')
    .option('--json', 'print one JSON document')
    .action(async (_options: unknown, command: Command) => {
      await cli.run(json(command), () => chooser().choose(null), formatSelection);
    });
}

/** One row per runtime, then what apply writes and why. */
export function formatSelection(report: SelectionReport): string {
  const yes = (value: boolean): string => (value ? 'yes' : '-');
  const rows = report.runtimes.map((entry) => [
    entry.runtime,
    entry.verified ? 'verified' : 'unconfirmed',
    [entry.command === null ? null : `\`${entry.command}\``, entry.home].filter((part) => part !== null).join(', ') || '-',
    yes(entry.chosen),
    yes(entry.selected),
    entry.reason,
  ]);
  const written = report.runtimes.filter((entry) => entry.selected).map((entry) => entry.runtime);
  const basis =
    report.basis === 'chosen'
      ? 'the chosen runtimes (loadout runtimes reset goes back to the detected ones)'
      : 'the runtimes detected on this machine (loadout runtimes use NAME… chooses)';
  return [
    table([['RUNTIME', 'KNOWLEDGE', 'FOUND', 'CHOSEN', 'APPLIED', 'WHY'], ...rows]),
    `apply writes ${written.length === 0 ? 'no runtime' : written.join(', ')}: ${basis}`,
  ].join('\n');
}

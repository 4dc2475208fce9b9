import { resolve } from '@loadout/kernel';
import type { UsageHookReport, UsageHookSwitch } from '@loadout/runtimes';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { table } from '../format.js';

/**
 * `loadout usage hook [on|off] [--runtime R…]`: the owner's consent to Loadout's usage hook in the
 * runtimes that have hooks (docs/decisions/runtimes.md). Registered under the `usage` group, made
 * here when no other command made it first.
 */
export function registerUsageHookCommand(program: Command, cli: CliContext): void {
  const usage =
    program.commands.find((command) => command.name() === 'usage') ??
    program.command('usage').description('which skills, commands, agents and tools the agents use');
  const toggle = (): UsageHookSwitch => resolve(cli.app(), cli.features.UsageHookSwitch);
  const json = (command: Command): boolean => command.optsWithGlobals<{ json?: boolean }>().json === true;
  const hook = usage
    .command('hook')
    .description("whether Loadout's usage hook is written into each runtime that has hooks")
    .option('--json', 'print one JSON document')
    .action(async (_options: unknown, command: Command) => {
      await cli.run(json(command), () => toggle().describe(), formatUsageHook);
    });
  for (const on of [true, false]) {
    hook
      .command(on ? 'on' : 'off')
      .description(
        on
          ? 'record which skills, commands, agents and tools each runtime uses, through a hook the next apply writes (every runtime that has hooks, or those named)'
          : 'stop recording at once; the next apply takes the hook out of each runtime (every runtime, or those named)',
      )
      // Runtimes are named as arguments: `usage` has a `--runtime` of its own (the report's
      // filter), which the command line hands to `usage` wherever it is typed.
      .argument('[runtime...]', 'only these runtimes (default: every one)')
      .option('--json', 'print one JSON document')
      .action(async (runtimes: string[], _options: unknown, command: Command) => {
        await cli.run(json(command), () => toggle().turn(on, runtimes), formatUsageHook);
      });
  }
}

/** One row per runtime that has hooks (or still has the hook on), then those without, where events go and what applies the change. */
export function formatUsageHook(report: UsageHookReport): string {
  const shown = report.runtimes.filter((entry) => entry.unsupported === null || entry.on);
  const without = report.runtimes.filter((entry) => !shown.includes(entry)).map((entry) => entry.runtime);
  const rows = shown.map((entry) => [entry.runtime, entry.on ? 'on' : 'off', entry.unsupported ?? entry.events.join(', ')]);
  return [
    table([['RUNTIME', 'USAGE HOOK', 'EVENTS'], ...rows]),
    ...(without.length === 0 ? [] : [`no hooks Loadout writes in: ${without.join(', ')}`]),
    `events are appended under ${report.spool}; \`loadout apply\` writes or removes the hook in each runtime`,
  ].join('\n');
}

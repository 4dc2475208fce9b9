import { resolve, visibleText } from '@loadout/kernel';
import type { UsageEntry, UsageReport } from '@loadout/usage';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP, UsageError } from '../CliContext.js';
import { table } from '../format.js';

/** The variable that sets how many days the ledger keeps, for the server and this command alike. */
export const KEEP_USAGE_DAYS_VARIABLE = 'LOADOUT_KEEP_USAGE_DAYS';

/**
 * `loadout usage [--since 30d] [--runtime R] [--project P]`: takes in what runtime hooks left in the
 * spool, then shows each capability the project's session offers with what the runtimes did with
 * it (invoked, failed, last used, in how many sessions), what was used that Loadout does not offer,
 * and suggestions with the command that acts on each.
 */
export function registerUsageCommand(program: Command, cli: CliContext): void {
  program
    .command('usage')
    .description('what the agents used of your capabilities, recorded locally (nothing is sent anywhere), with suggestions')
    .option('--since <window>', 'how far back: 30d, 7d, 12h', '30d')
    .option('--runtime <name>', 'one runtime only (claude-code, codex, or an MCP client name)')
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (options: { since: string; runtime?: string; project?: string; json?: boolean }) => {
      const project = cli.projectFor(options.project);
      await cli.run(
        options.json === true,
        () => {
          const { UsageLedger, parseUsageRuntime, parseUsageWindow, configureUsageRetention } = cli.features;
          const query = {
            sinceDays: parseUsageWindow(options.since),
            runtime: options.runtime === undefined ? null : parseUsageRuntime(options.runtime),
            project,
          };
          const app = cli.app();
          configureUsageRetention(app, { keepDays: keepUsageDays(cli.env[KEEP_USAGE_DAYS_VARIABLE]) });
          return resolve(app, UsageLedger).report(query);
        },
        (report) => formatUsage(report, cli.features.listedWords),
      );
    });
}

/**
 * The days the ledger keeps: `LOADOUT_KEEP_USAGE_DAYS`, else 90.
 *
 * @throws UsageError when it is set to anything but a whole number from 1 to 36500
 */
export function keepUsageDays(text: string | undefined): number {
  if (text === undefined || text === '') return 90;
  const days = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(days >= 1 && days <= 36_500)) throw new UsageError(`${KEEP_USAGE_DAYS_VARIABLE} must be a whole number of days from 1 to 36500`);
  return days;
}

type ListedWords = (listed: NonNullable<UsageEntry['listed']>[number]) => string;

/** How each predicted runtime lists a skill (`listed by name only in Claude Code`); `-` for what no listing covers. */
function listedText(entry: UsageEntry, words: ListedWords): string {
  if (entry.listed === null || entry.listed.length === 0) return '-';
  return entry.listed.map((listed) => words(listed)).join('; ');
}

function formatUsage(report: UsageReport, words: ListedWords): string {
  const header = `usage since ${report.since.slice(0, 10)}${report.project === null ? ' (global level)' : ` in ${report.project}`}${
    report.runtime === null ? '' : `, runtime ${report.runtime}`
  }`;
  const { ingested } = report;
  const spool =
    ingested.files === 0
      ? []
      : [
          `took in ${ingested.recorded} event(s) from ${ingested.files} spool file(s)${
            ingested.invalid + ingested.dropped === 0 ? '' : `; ${ingested.invalid} invalid and ${ingested.dropped} dropped line(s)`
          }`,
          ...ingested.problems.map((problem) => `  ${visibleText(problem)}`),
        ];
  const rows = report.capabilities.map((entry) => [
    visibleText(`${entry.kind}/${entry.id}`),
    entry.offered ? 'offered' : 'not offered',
    String(entry.invoked),
    String(entry.failed),
    entry.lastUsed === null ? 'never' : entry.lastUsed.slice(0, 16).replace('T', ' '),
    entry.runtimes.map((runtime) => visibleText(runtime.runtime)).join(', '),
    listedText(entry, words),
  ]);
  const lines = [
    header,
    ...spool,
    rows.length === 0
      ? 'nothing is offered or used'
      : table([['CAPABILITY', 'STATE', 'INVOKED', 'FAILED', 'LAST USED', 'RUNTIMES', 'LISTED'], ...rows]),
    ...(report.listingProblem === null ? [] : [visibleText(report.listingProblem)]),
  ];
  if (report.suggestions.length > 0)
    lines.push(
      'suggestions:',
      ...report.suggestions.map((suggestion) => `  ${visibleText(suggestion.message)}\n    ${suggestion.command}`),
    );
  return lines.join('\n');
}

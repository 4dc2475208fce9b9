import { CapabilityKinds, type ListedRecord, namesRecord, resolve, resolveAll, type Session, SessionLoader } from '@loadout/kernel';
import { NotFoundError } from '@loadout/files';
import type { WhyReport } from '@loadout/runtimes';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { table } from '../format.js';

/** One copy Loadout itself holds under the name asked about, of any kind. */
interface LoadoutCopy {
  readonly kind: string;
  readonly id: string;
  readonly name: string;
  readonly level: string;
  readonly plugin: string | null;
  /** In the session: the winner of its id, switched on. */
  readonly on: boolean;
  /** Set aside by a copy of the same id in a root that comes first. */
  readonly shadowed: boolean;
  /** Why trust holds it (`untrusted-project`, `unapproved-plugin`), or null. */
  readonly held: string | null;
  readonly path: string;
  /** Why the session leaves it out or holds it, in words; null for the copy in use. */
  readonly reason: string | null;
}

function whyLeftOut(record: ListedRecord): string | null {
  if (record.held !== undefined) return record.held.reason;
  if (record.shadowedBy !== null) return `shadowed by ${record.shadowedBy}`;
  if (!record.on) return 'switched off, or its plugin is disabled';
  return null;
}

/**
 * `loadout why NAME [--project DIR]`: for each runtime, every copy of the skill it would see once
 * `apply` ran (Loadout's, the user's, its own built-in ones, an administrator's), which one it uses,
 * and why; and every copy Loadout's roots hold under that name, of every kind (a subagent, a
 * command, a hook …), with the one that wins. Plans every runtime and writes nothing.
 */
export function registerWhyCommand(program: Command, cli: CliContext): void {
  program
    .command('why')
    .argument('<name>', 'the skill name as a runtime lists it, or its Loadout id')
    .description('every copy of a skill each runtime would see, and which one wins')
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (name: string, options: { project?: string; json?: boolean }) => {
      const project = cli.projectFor(options.project);
      await cli.run(
        options.json === true,
        async () => {
          const session = await cli.app().resolve(SessionLoader).open({ project, keepDocuments: true });
          try {
            const plan = await resolve(cli.app(), cli.features.RuntimePlanner).plan(session);
            const explained = cli.features.explainSkill(plan, name);
            // How the name fares in each runtime's prompt listing (described, by name only, dropped).
            // Ranked by recent use from the ledger where the runtime ranks so; a ledger that cannot be read is said, never fatal.
            const budget = await resolve(cli.app(), cli.features.ListingBudget).fromPlan(plan);
            const budgets = budget.runtimes;
            const report = {
              ...explained,
              runtimes: explained.runtimes.map((runtime) => {
                const budget = budgets.find((entry) => entry.runtime === runtime.runtime);
                return { ...runtime, listing: budget === undefined ? null : cli.features.listingVerdict(budget, name) };
              }),
            };
            const loadout = loadoutCopies(cli, session, name);
            // No runtime would see any copy under that name, and Loadout has no capability of it,
            // not even a switched-off one: an unknown name, not an answer.
            if (report.runtimes.every((runtime) => runtime.copies.length === 0 && runtime.documents.length === 0) && loadout.length === 0) {
              throw new NotFoundError(
                'SKILL_NOT_FOUND',
                `no runtime would see a skill named "${name.slice(0, 120)}", from Loadout or anywhere else, and Loadout has no capability of that name`,
              );
            }
            return { ...report, loadout, ...(budget.usageProblem === null ? {} : { usageProblem: budget.usageProblem }) };
          } finally {
            session.dispose();
          }
        },
        formatWhy,
      );
    });
}

/** Every copy in the roots `session` reads, of every kind, whose id or name is `name`; switched-off and shadowed ones included. */
function loadoutCopies(cli: CliContext, session: Session, name: string): LoadoutCopy[] {
  const loader = cli.app().resolve(SessionLoader);
  const wanted = name.toLowerCase();
  const copies: LoadoutCopy[] = [];
  for (const kind of resolveAll(cli.app(), CapabilityKinds)) {
    for (const record of loader.listRecordsOf(session, kind.kind, { includeDisabled: true })) {
      if (!namesRecord(name, record) && record.name.toLowerCase() !== wanted) continue;
      copies.push({
        kind: record.kind,
        id: record.id,
        name: record.name,
        level: record.level,
        plugin: record.plugin,
        on: record.on,
        shadowed: record.shadowedBy !== null,
        held: record.held?.decidedBy ?? null,
        path: record.path,
        reason: whyLeftOut(record),
      });
    }
  }
  return copies;
}

function formatWhy(
  report: Omit<WhyReport, 'runtimes'> & {
    runtimes: readonly (WhyReport['runtimes'][number] & { listing: string | null })[];
    loadout: readonly LoadoutCopy[];
    usageProblem?: string;
  },
): string {
  const lines = [`${report.name}${report.project === null ? '' : ` (project ${report.project})`}`];
  if (report.loadout.length > 0) {
    lines.push('loadout: every copy in its roots (* is in the session)');
    const rows = report.loadout.map((copy) => [
      copy.on ? '*' : ' ',
      `${copy.kind}/${copy.id}`,
      copy.level,
      copy.plugin === null ? 'owner' : `plugin ${copy.plugin}`,
      copy.on ? (copy.held === null ? 'on' : `held: ${copy.held}`) : copy.shadowed ? 'shadowed' : 'off',
      copy.reason ?? '',
    ]);
    lines.push(
      ...table(rows)
        .split('\n')
        .map((line) => `  ${line}`),
    );
  }
  if (report.usageProblem !== undefined) lines.push(report.usageProblem);
  for (const runtime of report.runtimes) {
    lines.push(`${runtime.runtime} (${runtime.verified ? runtime.status : 'unconfirmed'}): ${runtime.reason}`);
    // Agents, commands and hooks of the name it loads: what a plugin read in place brings, or Loadout's copies.
    for (const seen of runtime.documents)
      lines.push(
        `  ${seen.kind} ${seen.name}: ${seen.state === 'in-place' ? `plugin ${seen.plugin ?? ''}, read in place` : "Loadout's copy"} (${seen.path})`,
      );
    if (runtime.listing !== null) lines.push(`  ${runtime.listing}`);
    if (runtime.copies.length === 0) continue;
    const rows = runtime.copies.map((copy) => [
      copy.wins ? '*' : copy.loaded ? ' ' : 'x',
      String(copy.precedence),
      copy.path ?? `(${runtime.runtime} itself)`,
      copy.plugin === null ? copy.owner : `${copy.owner} ${copy.plugin}`,
      copy.loaded ? copy.state : `refused: ${copy.refusal ?? ''}`,
      copy.hash ?? '',
    ]);
    lines.push(
      ...table(rows)
        .split('\n')
        .map((line) => `  ${line}`),
    );
  }
  return lines.join('\n');
}

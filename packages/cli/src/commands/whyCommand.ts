import { namesRecord, NotFoundError, resolve, type Session, SessionLoader } from '@loadout/kernel';
import type { WhyReport } from '@loadout/runtimes';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { table } from '../format.js';

/**
 * `loadout why NAME [--project DIR]`: for each runtime, every copy of the skill it would see once
 * `apply` ran (Loadout's, the user's, its own built-in ones, an administrator's), which one it uses,
 * and why. Plans every runtime and writes nothing.
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
          const session = await cli.app().resolve(SessionLoader).open({ project });
          try {
            const report = cli.features.explainSkill(await resolve(cli.app(), cli.features.RuntimePlanner).plan(session), name);
            const loadout = await loadoutCopies(cli, session, name, project);
            // No runtime would see any copy under that name, and Loadout has no such skill, not even
            // a switched-off one: an unknown name, not an answer.
            if (report.runtimes.every((runtime) => runtime.copies.length === 0) && loadout.all === 0) {
              throw new NotFoundError(
                'SKILL_NOT_FOUND',
                `no runtime would see a skill named "${name.slice(0, 120)}", from Loadout or anywhere else`,
              );
            }
            return { ...report, loadout: loadout.kept };
          } finally {
            session.dispose();
          }
        },
        formatWhy,
      );
    });
}

/** One of Loadout's own copies of the name that no runtime gets, and why. */
interface KeptCopy {
  readonly plugin: string | null;
  readonly path: string;
  readonly state: 'shadowed' | 'off' | 'held';
  readonly reason: string;
}

/**
 * Loadout's own copies of the name (by id, display name, or `plugin:id`) that the session leaves
 * out or holds: shadowed, switched off (or of a disabled plugin), held until trusted or approved;
 * and how many copies of the name Loadout has at all.
 */
async function loadoutCopies(
  cli: CliContext,
  session: Session,
  name: string,
  project: string | null,
): Promise<{ kept: KeptCopy[]; all: number }> {
  const listed = await resolve(cli.app(), cli.features.CapabilityLevels).list('skill', project);
  const wanted = name.toLowerCase();
  const named = listed.filter((record) => namesRecord(name, record) || record.name.toLowerCase() === wanted);
  const kept: KeptCopy[] = [];
  for (const record of named) {
    if (record.shadowedBy !== null)
      kept.push({ plugin: record.plugin, path: record.path, state: 'shadowed', reason: `shadowed by ${record.shadowedBy}` });
    else if (!record.on)
      kept.push({ plugin: record.plugin, path: record.path, state: 'off', reason: 'switched off, or its plugin is disabled' });
  }
  for (const record of session.recordsOf('skill')) {
    if (record.held !== undefined && (namesRecord(name, record) || record.name.toLowerCase() === wanted))
      kept.push({ plugin: record.plugin, path: record.path, state: 'held', reason: record.held.reason });
  }
  return { kept, all: named.length };
}

function formatWhy(report: WhyReport & { loadout: readonly KeptCopy[] }): string {
  const lines = [`${report.name}${report.project === null ? '' : ` (project ${report.project})`}`];
  for (const copy of report.loadout)
    lines.push(`Loadout's copy ${copy.path}${copy.plugin === null ? '' : ` (plugin ${copy.plugin})`} is ${copy.state}: ${copy.reason}`);
  for (const runtime of report.runtimes) {
    lines.push(`${runtime.runtime} (${runtime.verified ? runtime.status : 'unconfirmed'}): ${runtime.reason}`);
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

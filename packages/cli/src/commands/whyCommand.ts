import { resolve, SessionLoader } from '@loadout/kernel';
import { NotFoundError } from '@loadout/files';
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
            // No runtime would see any copy under that name, and Loadout has no such skill, not even
            // a switched-off one: an unknown name, not an answer.
            if (report.runtimes.every((runtime) => runtime.copies.length === 0) && !(await knowsSkill(cli, name, project))) {
              throw new NotFoundError(
                'SKILL_NOT_FOUND',
                `no runtime would see a skill named "${name.slice(0, 120)}", from Loadout or anywhere else`,
              );
            }
            return report;
          } finally {
            session.dispose();
          }
        },
        formatWhy,
      );
    });
}

/** Whether any root of the session holds a skill of that id or name, switched off and shadowed ones included. */
async function knowsSkill(cli: CliContext, name: string, project: string | null): Promise<boolean> {
  const listed = await resolve(cli.app(), cli.features.CapabilityLevels).list('skill', project);
  const wanted = name.toLowerCase();
  return listed.some((record) => record.id.toLowerCase() === wanted || record.name.toLowerCase() === wanted);
}

function formatWhy(report: WhyReport): string {
  const lines = [`${report.name}${report.project === null ? '' : ` (project ${report.project})`}`];
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

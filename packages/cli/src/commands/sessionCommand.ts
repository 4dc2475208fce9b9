import { CapabilityKinds, resolveAll, SessionLoader } from '@loadout/kernel';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { formatDiagnostics } from '../format.js';

/** `loadout session [--project DIR]`: what an agent in that folder would get. */
export function registerSessionCommand(program: Command, context: CliContext): void {
  const command = program
    .command('session')
    .description('open a session and print its roots, capabilities, blocks and diagnostics')
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document');
  // Only features.ts is loaded for this command, and this context's type says so.
  const cli = context.readsSessionsOnly(command);
  command.action(async (options: { project?: string; json?: boolean }) => {
    await cli.run(
      options.json === true,
      async () => {
        const session = await cli
          .app()
          .resolve(SessionLoader)
          .open({ project: cli.projectFor(options.project) });
        try {
          return session.toJSON();
        } finally {
          session.dispose();
        }
      },
      (json) => {
        const lines = [`project: ${String(json.project ?? '(none)')}`, 'roots:'];
        for (const root of json.roots as { dir: string; level: string; plugin: string | null; writable: boolean }[]) {
          lines.push(
            `  ${root.level.padEnd(7)} ${root.plugin === null ? 'owner' : `plugin ${root.plugin}`}${root.writable ? '' : ' (read-only)'}  ${root.dir}`,
          );
        }
        // Every registered kind, in registration order: a kind added by its package shows up here too.
        for (const { sessionKey: key } of resolveAll(cli.app(), CapabilityKinds)) {
          const records = (json[key] ?? []) as { id: string; plugin: string | null; held?: { decidedBy: string } }[];
          const label = (r: (typeof records)[number]): string =>
            `${r.plugin === null ? r.id : `${r.id} [${r.plugin}]`}${r.held === undefined ? '' : ` (held: ${r.held.decidedBy})`}`;
          lines.push(`${key} (${records.length}): ${records.map(label).join(', ')}`);
        }
        lines.push(...formatDiagnostics(json.diagnostics as { severity: string; code: string; message: string }[]));
        return lines.join('\n');
      },
    );
  });
}

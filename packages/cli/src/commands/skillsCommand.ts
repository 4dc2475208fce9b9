import { resolve } from '@loadout/kernel';
import type { CapabilityLevels, ListedCapability, TransferableKind, TransferResult } from '@loadout/levels';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { formatDiagnostics, table } from '../format.js';

/** How one kind's `list` / `transfer` commands are named and described. */
export interface LevelCommandSpec {
  /** The command, e.g. `skills`. */
  readonly command: string;
  readonly kind: TransferableKind;
  /** A one-line description of the command group. */
  readonly description: string;
}

interface ListOptions {
  project?: string;
  json?: boolean;
}

interface TransferOptions {
  from: string;
  to: string;
  project?: string;
  json?: boolean;
}

/** `loadout skills list | transfer ID --from END --to END`. */
export function registerSkillsCommand(program: Command, cli: CliContext): Command {
  return registerLevelCommand(program, cli, {
    command: 'skills',
    kind: 'skill',
    description: 'skills of every root, and moving an owner’s skill between the global and a project level',
  });
}

/**
 * A kind's `list` and `transfer` subcommands. END is `global` or `project:<dir>`; `--project`
 * names the project whose view of a global source's on/off state is carried (default: the global
 * default).
 */
export function registerLevelCommand(program: Command, cli: CliContext, spec: LevelCommandSpec): Command {
  const group = program.command(spec.command).description(spec.description);
  const levels = (): CapabilityLevels => resolve(cli.app(), cli.features.CapabilityLevels);

  group
    .command('list')
    .description(`every ${spec.kind} in the session's roots, shadowed and switched-off ones included`)
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (options: ListOptions) => {
      await cli.run(options.json === true, () => levels().list(spec.kind, cli.projectFor(options.project)), formatListed);
    });

  group
    .command('transfer')
    .argument('<id>', `the ${spec.kind}'s id`)
    .description(`move an owner's ${spec.kind} to another level; a collision renames the arriving one, never the one there`)
    .requiredOption('--from <end>', 'where it is: global or project:<dir>')
    .requiredOption('--to <end>', 'where it goes: global or project:<dir>')
    .option('--project <dir>', "for a global --from: carry the on/off state this project's sessions see")
    .option('--json', 'print one JSON document')
    .action(async (id: string, options: TransferOptions) => {
      await cli.run(
        options.json === true,
        () => {
          const from = cli.features.parseLevelEndArgument(options.from);
          const to = cli.features.parseLevelEndArgument(options.to);
          const context = from.level === 'global' && options.project !== undefined ? { projectPath: options.project } : {};
          return levels().transfer({ kind: spec.kind, id, from: { ...from, ...context }, to });
        },
        formatTransfer,
      );
    });
  return group;
}

function formatListed(records: readonly ListedCapability[]): string {
  if (records.length === 0) return 'none';
  return table([
    ['ID', 'NAME', 'LEVEL', 'SOURCE', 'STATE', 'PATH'],
    ...records.map((record) => [
      record.id,
      record.name,
      record.level,
      record.plugin === null ? 'owner' : `plugin ${record.plugin}`,
      record.on ? 'on' : record.shadowedBy === null ? 'off' : 'shadowed',
      record.path,
    ]),
  ]);
}

function formatTransfer(result: TransferResult): string {
  const { record, previous } = result;
  if (!result.moved) return `${record.kind} "${record.id}" is already there; nothing was moved`;
  const lines = [
    `moved ${record.kind} "${previous.id}" to the ${record.level} level as "${record.id}" (${record.name})`,
    `  from ${previous.path}`,
    `  to   ${record.path}`,
    `  state carried: ${result.surfaced === true ? 'on' : 'off'}`,
  ];
  const gates = Object.entries(result.gates);
  if (gates.length > 0) lines.push(`  gates carried: ${gates.map(([name, value]) => `${name}=${value ? 'on' : 'off'}`).join(', ')}`);
  for (const warning of result.warnings) lines.push(`warning: ${warning}`);
  return [...lines, ...formatDiagnostics(result.diagnostics)].join('\n');
}

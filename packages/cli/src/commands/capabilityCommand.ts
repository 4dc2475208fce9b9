import { resolve, SessionLoader } from '@loadout/kernel';
import type { CapabilityStateEntry, CapabilityStateService, DesiredCapability, SetCapabilityStateResult } from '@loadout/state';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';
import { table } from '../format.js';

interface StateOptions {
  project?: string;
  json?: boolean;
}

interface SetOptions extends StateOptions {
  enable?: boolean;
  disable?: boolean;
  gate: string[];
}

/**
 * `loadout capability state | set`: what is on and why, and turning it on and off. A refused or
 * diverging write exits 1 with the full result (its `errors`) on stdout under `--json`.
 */
export function registerCapabilityCommand(program: Command, cli: CliContext): Command {
  const capability = program.command('capability').description('capability state: on/off per capability, gates, and why');
  const service = (): CapabilityStateService => resolve(cli.app(), cli.features.CapabilityStateService);

  capability
    .command('state')
    .description('every capability of the owner and of each installed plugin, with what decided its state')
    .option(
      '--project <dir>',
      'describe the sessions of this project folder (default: the nearest folder at or above the working folder with .agents/)',
    )
    .option('--json', 'print one JSON document')
    .action(async (options: StateOptions) => {
      await cli.run(
        options.json === true,
        async () => {
          const project = cli.projectFor(options.project);
          return {
            project: project === null ? null : SessionLoader.resolveProject(project),
            capabilities: await service().resolveCapabilityState({ project }),
          };
        },
        ({ capabilities }) => formatEntries(capabilities),
      );
    });

  capability
    .command('set')
    .argument('<kind/id>', 'the capability, e.g. skill/pdf')
    .description('turn a capability on or off and set its gates (globally, or for one project with --project)')
    .option('--enable', 'turn it on')
    .option('--disable', 'turn it off')
    .option('--gate <name=on|off>', 'set a gate (repeatable)', (value: string, all: string[]) => [...all, value], [])
    .option('--project <dir>', "write this project's override and its .agents/config.json instead of the global default")
    .option('--json', 'print the whole result as one JSON document')
    .action(async (target: string, options: SetOptions) => {
      await cli.run(
        options.json === true,
        async () => {
          const desired = desiredFrom(target, options);
          const result = await service().setCapabilityState({ project: options.project ?? null }, [desired]);
          const [first] = result.errors;
          // A refusal still carries the error document every --json command prints on failure:
          // the writer's first error, with its own code.
          return first === undefined ? result : { ...result, error: first };
        },
        (result) => formatResult(result, target),
        {
          failure: ({ errors }) => (errors.length === 0 ? null : errors.map((error) => error.message).join('; ')),
        },
      );
    });
  return capability;
}

/** The command line as one desired state; on/off values are checked by the writer with the rest. */
function desiredFrom(target: string, options: SetOptions): DesiredCapability {
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) throw new UsageError(`expected KIND/ID, e.g. skill/pdf, not "${target}"`);
  if (options.enable === true && options.disable === true) throw new UsageError('give --enable or --disable, not both');
  if (options.enable !== true && options.disable !== true && options.gate.length === 0) {
    throw new UsageError('nothing to set: give --enable, --disable or --gate NAME=on|off');
  }
  const pairs = options.gate.map((gate): [string, string] => {
    const equals = gate.indexOf('=');
    if (equals <= 0) throw new UsageError(`--gate expects NAME=on|off, not "${gate}"`);
    return [gate.slice(0, equals), gate.slice(equals + 1)];
  });
  // Every name the owner typed becomes its own key, even `__proto__`, so the writer refuses an
  // undeclared one by name instead of it vanishing into the object's prototype.
  const gates = Object.fromEntries(pairs);
  return {
    kind: target.slice(0, slash),
    id: target.slice(slash + 1),
    ...(options.enable === true ? { enabled: true } : options.disable === true ? { enabled: false } : {}),
    ...(options.gate.length === 0 ? {} : { gates }),
  };
}

function formatEntries(entries: readonly CapabilityStateEntry[]): string {
  if (entries.length === 0) return 'no capabilities';
  const held = entries.filter((entry) => entry.held !== null).map((entry) => `held ${entry.kind}/${entry.id}: ${entry.held ?? ''}`);
  return [formatTable(entries), ...held].join('\n');
}

function formatTable(entries: readonly CapabilityStateEntry[]): string {
  return table([
    ['CAPABILITY', 'SOURCE', 'STATE', 'DECIDED BY', 'GATES'],
    ...entries.map((entry) => [
      `${entry.kind}/${entry.id}`,
      `${entry.level} ${entry.plugin === null ? 'owner' : `plugin ${entry.plugin}`}`,
      entry.enabled ? (entry.held !== null ? 'held' : entry.active ? 'on' : 'on (dead)') : 'off',
      entry.decidedBy,
      Object.entries(entry.gates)
        .map(([name, gate]) => `${name}=${gate.configured ? 'on' : 'off'}${gate.active ? '' : ' (inactive)'} [${gate.decidedBy}]`)
        .join(', '),
    ]),
  ]);
}

function formatResult(result: SetCapabilityStateResult, target: string): string {
  // The errors go to stderr, once (the failure line); stdout says what came of the request.
  const lines: string[] = [];
  for (const warning of result.warnings) lines.push(`warning: ${warning}`);
  if (result.errors.length === 0) {
    const key = target.toLowerCase();
    const entry = result.capabilities.find((candidate) => `${candidate.kind}/${candidate.id}`.toLowerCase() === key);
    lines.unshift(entry === undefined ? `set ${target}` : `set ${target}\n${formatEntries([entry])}`);
  } else if (!result.written) {
    lines.push('nothing was changed');
  }
  return lines.join('\n');
}

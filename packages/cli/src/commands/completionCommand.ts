import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';

/** One command's place in the tree: its words from the top, and what may follow it. */
interface CompletionNode {
  readonly path: readonly string[];
  readonly commands: readonly { readonly name: string; readonly description: string }[];
  readonly options: readonly string[];
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * `loadout completion bash|zsh|fish`: a completion script for the shell, made from the command
 * tree itself, so a command added to the program completes without touching this file.
 */
export function registerCompletionCommand(program: Command, cli: CliContext): void {
  program
    .command('completion')
    .argument('<shell>', SHELLS.join(', '))
    .description(
      'print a completion script: eval "$(loadout completion bash)" in ~/.bashrc (zsh: ~/.zshrc; fish: loadout completion fish | source)',
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        cli.fail(
          false,
          new UsageError(`no completion for "${shell.slice(0, 40)}": give ${SHELLS.join(', ')}`, '`loadout completion bash`'),
        );
        return;
      }
      process.stdout.write(completionScript(shell as Shell, nodesOf(program)));
      cli.settle({ kind: 'done' });
    });
}

function nodesOf(command: Command, path: readonly string[] = []): CompletionNode[] {
  const visible = command.commands.filter((sub) => sub.name() !== 'help');
  const node: CompletionNode = {
    path,
    commands: visible.flatMap((sub) =>
      [sub.name(), ...sub.aliases()].map((name) => ({ name, description: sub.description().split(/[;(]/)[0]?.trim() ?? '' })),
    ),
    options: [
      ...command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined)),
      '--help',
    ],
  };
  return [node, ...visible.flatMap((sub) => nodesOf(sub, [...path, sub.name()]))];
}

function completionScript(shell: Shell, nodes: readonly CompletionNode[]): string {
  if (shell === 'fish') return fishScript(nodes);
  const cases = nodes
    .map((node) => `    '${node.path.join(' ')}') words='${[...node.commands.map((c) => c.name), ...node.options].join(' ')}' ;;`)
    .join('\n');
  const bash = `_loadout_complete() {
  local current=\${COMP_WORDS[COMP_CWORD]} path='' word words
  # The command words typed so far (options left out) pick the list to complete from.
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) path="\${path:+$path }$word" ;; esac
  done
  case "$path" in
${cases}
    *) words='' ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -o default -F _loadout_complete loadout
`;
  // zsh runs the bash function through its own bash completion layer.
  return shell === 'zsh' ? `autoload -U +X bashcompinit && bashcompinit\n${bash}` : bash;
}

function fishScript(nodes: readonly CompletionNode[]): string {
  const lines = ['complete -c loadout -f'];
  for (const node of nodes) {
    // fish's own test for "the words so far are exactly this path".
    const condition =
      node.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${node.path[node.path.length - 1] ?? ''}`;
    for (const command of node.commands)
      lines.push(`complete -c loadout -n '${condition}' -a '${command.name}' -d '${command.description.replace(/'/g, "\\'")}'`);
  }
  return `${lines.join('\n')}\n`;
}

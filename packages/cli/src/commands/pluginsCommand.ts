import { resolve } from '@loadout/kernel';
import { type PluginEntry, PluginManager } from '@loadout/plugins';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { table } from '../format.js';

interface PluginsOptions {
  json?: boolean;
  name?: string;
  ref?: string;
  apply?: boolean;
}

/** `loadout plugins install | update | enable | disable | uninstall | list | migrate`. */
export function registerPluginsCommand(program: Command, cli: CliContext): Command {
  const plugins = program
    .command('plugins')
    .description("plugins are git repositories cloned into plugins/<name>; their capabilities are read where they are");
  const manager = (): PluginManager => resolve(cli.app(), PluginManager);

  plugins
    .command('install')
    .argument('<git-url>', 'an https, ssh, git or file URL, or a local repository folder')
    .description('clone a plugin and record it; nothing is copied into the owner\'s repository')
    .option('--name <name>', "the plugin's name (default: plugin.json, .claude-plugin/plugin.json, then the repository name)")
    .option('--ref <ref>', 'a branch or tag to install instead of the default branch')
    .option('--json', 'print one JSON document')
    .action(async (url: string, options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => manager().install(url, { ...(options.name === undefined ? {} : { name: options.name }), ...(options.ref === undefined ? {} : { ref: options.ref }) }),
        (entry) => `installed plugin ${entry.name} at ${entry.commit.slice(0, 12)} from ${entry.url}\n  ${entry.dir}`,
      );
    });

  plugins
    .command('update')
    .argument('[names...]', 'plugins to update (default: all)')
    .description('fast-forward plugins to their upstream branch; refused when a clone has local changes')
    .option('--json', 'print one JSON document')
    .action(async (names: string[], options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => manager().update(names),
        (updates) =>
          updates.length === 0
            ? 'no plugins installed'
            : updates
                .map((u) => (u.status === 'updated' ? `${u.name}: updated ${u.from.slice(0, 12)} -> ${u.to.slice(0, 12)}` : `${u.name}: ${u.status} at ${u.to.slice(0, 12)}`))
                .join('\n'),
      );
    });

  for (const [verb, description] of [
    ['enable', 'let the plugin contribute to the next session'],
    ['disable', 'keep the plugin installed but contribute nothing to the next session'],
  ] as const) {
    plugins
      .command(verb)
      .argument('<name>', 'the plugin')
      .description(description)
      .option('--json', 'print one JSON document')
      .action(async (name: string, options: PluginsOptions) => {
        await cli.run(
          options.json === true,
          () => (verb === 'enable' ? manager().enable(name) : manager().disable(name)),
          (entry) => `plugin ${entry.name} ${entry.enabled ? 'enabled' : 'disabled'}`,
        );
      });
  }

  plugins
    .command('uninstall')
    .argument('<name>', 'the plugin')
    .description("remove the plugin's folder, its registry row and its state")
    .option('--json', 'print one JSON document')
    .action(async (name: string, options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => manager().uninstall(name),
        (result) => [`uninstalled plugin ${result.name}`, ...result.warnings.map((w) => `  warning: ${w}`)].join('\n'),
      );
    });

  plugins
    .command('list')
    .description('installed plugins in install order (the order their capabilities take precedence)')
    .option('--json', 'print one JSON document')
    .action(async (options: PluginsOptions) => {
      await cli.run(options.json === true, () => manager().list(), formatList);
    });

  plugins
    .command('migrate')
    .description("list untracked files in the owner's repository that are byte-identical copies of an installed plugin's files")
    .option('--apply', 'delete exactly those files')
    .option('--json', 'print one JSON document')
    .action(async (options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => manager().migrate({ apply: options.apply === true }),
        (result) => {
          if (result.files.length === 0) return 'no copies of plugin files in the owner\'s repository';
          const lines = result.files.map((f) => `  ${f.path}  (same as plugin ${f.plugin})`);
          return [result.applied ? `deleted ${result.files.length} copies:` : `${result.files.length} copies (run with --apply to delete them):`, ...lines].join('\n');
        },
      );
    });
  return plugins;
}

function formatList(entries: readonly PluginEntry[]): string {
  if (entries.length === 0) return 'no plugins installed';
  return table([
    ['NAME', 'STATE', 'COMMIT', 'URL'],
    ...entries.map((e) => [e.name, e.enabled ? 'enabled' : 'disabled', e.commit.slice(0, 12), e.url]),
  ]);
}

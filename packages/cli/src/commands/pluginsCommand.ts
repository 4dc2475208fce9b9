import { resolve } from '@loadout/kernel';
import type { InstallableListing, PluginEntry, PluginInstall, PluginManager, PluginMigration } from '@loadout/plugins';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';
import { formatDiagnostics, table } from '../format.js';
import { applyFailure, applySession, checkRuntimeNames, formatResult } from './applyCommand.js';
import { type ConsentedInstall, formatConsent, formatHeld, formatHeldPlugins, heldPlugins, withConsent, withHeld } from './trustCommand.js';

interface PluginsOptions {
  json?: boolean;
  name?: string;
  ref?: string;
  path?: string;
  apply?: boolean;
  frozen?: boolean;
  yes?: boolean;
  allowEmpty?: boolean;
  list?: boolean;
  runtime?: string[];
}

/** `loadout plugins install | update | enable | disable | uninstall | list | migrate | search | sync | outdated`. */
export function registerPluginsCommand(program: Command, cli: CliContext): Command {
  const plugins = program
    .command('plugins')
    .description('plugins are git repositories cloned into plugins/<name>; their capabilities are read where they are');
  const manager = (): PluginManager => resolve(cli.app(), cli.features.PluginManager);

  plugins
    .command('install')
    .argument('<source>', 'NAME@MARKETPLACE, or an https, ssh, git or file URL, or a local repository folder')
    .description("clone a plugin and record it (and in capabilities/loadout-lock.json); nothing is copied into the owner's repository")
    .option('--name <name>', "the plugin's name (default: the marketplace entry's, else its manifest's, else the repository's)")
    .option('--ref <ref>', 'a branch or tag to install instead of the default branch (not with NAME@MARKETPLACE)')
    .option('--path <folder>', "the plugin's folder inside the repository, when it is not the whole repository (not with NAME@MARKETPLACE)")
    .option(
      '--yes',
      'approve what the plugin can run in the same step (for scripts); without it, its tasks and MCP servers are held until `plugins approve`',
    )
    .option('--allow-empty', 'install it even when it loads nothing (otherwise refused, saying what to install instead)')
    .option('--list', 'list what the repository holds that can be installed (skill collections, marketplace plugins); install nothing')
    .option('--apply', 'then write the session into the agent runtimes, as `loadout apply` does, in the same command')
    .option(
      '--runtime <name>',
      'with --apply: only this runtime (repeatable); default: those `loadout apply` takes',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option('--json', 'print one JSON document')
    .action(async (source: string, options: PluginsOptions) => {
      const runtimes = options.runtime ?? [];
      const refusal =
        options.apply !== true && runtimes.length > 0
          ? '--runtime goes with --apply: it names the runtimes the install is applied to'
          : options.apply === true && options.list === true
            ? '--list installs nothing, so there is nothing to --apply'
            : null;
      if (refusal !== null) {
        cli.fail(options.json === true, new UsageError(refusal));
        return;
      }
      if (options.list === true) {
        await cli.run(
          options.json === true,
          () => {
            if (cli.features.isMarketplaceEntryId(source)) throw new UsageError('--list takes a repository, not NAME@MARKETPLACE');
            return manager().listInstallable(source, {
              ...(options.ref === undefined ? {} : { ref: options.ref }),
              ...(options.path === undefined ? {} : { path: options.path }),
            });
          },
          formatInstallable,
          { progress: `cloning ${source.slice(0, 120)} to list it` },
        );
        return;
      }
      const name = {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.allowEmpty === true ? { allowEmpty: true } : {}),
      };
      if (options.apply === true) {
        await cli.run(
          options.json === true,
          async () => {
            // A runtime name is checked before anything is cloned: a refused command changes nothing.
            checkRuntimeNames(cli, runtimes);
            const installed = await withConsent(cli, await installFrom(), options.yes === true);
            return { ...installed, apply: await applySession(cli, { project: undefined, runtimes, mode: 'apply', mcpBridge: 'keep' }) };
          },
          (result) => `${formatInstall(result)}\n${formatResult(result.apply)}`,
          { progress: `cloning ${source.slice(0, 120)}, then applying`, failure: (result) => applyFailure(result.apply) },
        );
        return;
      }
      await cli.run(options.json === true, async () => withConsent(cli, await installFrom(), options.yes === true), formatInstall, {
        progress: `cloning ${source.slice(0, 120)}`,
      });

      async function installFrom(): Promise<PluginInstall> {
        if (!cli.features.isMarketplaceEntryId(source)) {
          return manager().install(source, {
            ...name,
            ...(options.ref === undefined ? {} : { ref: options.ref }),
            ...(options.path === undefined ? {} : { path: options.path }),
          });
        }
        if (options.ref !== undefined || options.path !== undefined) {
          throw new UsageError('--ref and --path do not go with NAME@MARKETPLACE: the marketplace entry says where the plugin is');
        }
        return resolve(cli.app(), cli.features.MarketplaceManager).install(source, name);
      }
    });

  plugins
    .command('update')
    .argument('[names...]', 'plugins to update (default: all)')
    .description('fast-forward plugins to their upstream branch; refused when a clone has local changes')
    .option('--json', 'print one JSON document')
    .action(async (names: string[], options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        async () => withHeld(cli, await manager().update(names)),
        (updates) =>
          updates.length === 0
            ? 'no plugins installed'
            : updates
                .map(
                  (u) =>
                    (u.status === 'updated'
                      ? `${u.name}: updated ${u.from.slice(0, 12)} -> ${u.to.slice(0, 12)}`
                      : `${u.name}: ${u.status} at ${u.to.slice(0, 12)}`) + formatHeld(u),
                )
                .join('\n'),
        { progress: 'fetching and updating plugins' },
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
    .command('search')
    .argument('[text...]', "words that must all appear in a plugin's name, description or keywords (none: every plugin)")
    .description('search every added marketplace')
    .option('--json', 'print one JSON document')
    .action(async (words: string[], options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => resolve(cli.app(), cli.features.MarketplaceManager).search(words.join(' ')),
        (hits) =>
          hits.length === 0
            ? 'no plugin found (add a marketplace with `loadout marketplace add <git-url>`)'
            : table([
                ['PLUGIN', 'INSTALLED', 'DESCRIPTION'],
                ...hits.map((hit) => [
                  hit.id,
                  hit.installed ?? (hit.installable ? '' : `cannot: ${hit.reason ?? ''}`),
                  hit.description.slice(0, 100),
                ]),
              ]),
      );
    });

  plugins
    .command('sync')
    .description(
      'make plugins/ match capabilities/loadout-lock.json: clone what is missing, check out recorded commits, set flags and order',
    )
    .option('--frozen', 'change nothing; fail if any plugin would have to change')
    .option('--json', 'print one JSON document')
    .action(async (options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        async () => {
          const result = await resolve(cli.app(), cli.features.PluginLockSync).sync({ frozen: options.frozen === true });
          // Approvals are this machine's own: a plugin the lock brought here runs nothing until approved here.
          return {
            ...result,
            held: await heldPlugins(
              cli,
              manager()
                .list()
                .map((entry) => entry.name),
            ),
          };
        },
        (result) => {
          const lines =
            result.changes.length === 0 && !result.reordered
              ? [`plugins match the lock (${result.unchanged.length} plugins)`]
              : result.changes.map((c) =>
                  c.action === 'move' ? `${c.name}: moved ${c.from?.slice(0, 12)} -> ${c.to?.slice(0, 12)}` : `${c.name}: ${c.action}`,
                );
          if (result.reordered) lines.push("order set to the lock's");
          return [...lines, ...formatHeldPlugins(result.held)].join('\n');
        },
      );
    });

  plugins
    .command('outdated')
    .description(
      "fetch each plugin repository once, and list the plugins whose own folder changed upstream since the lock's commit (exit 1 when any)",
    )
    .option('--json', 'print one JSON document')
    .action(async (options: PluginsOptions) => {
      await cli.run(
        options.json === true,
        () => resolve(cli.app(), cli.features.PluginLockSync).outdated(),
        (found) =>
          found.length === 0
            ? 'every plugin is at its upstream'
            : table([
                ['PLUGIN', 'LOCKED', 'UPSTREAM', 'BEHIND', 'FILES', 'VIA'],
                ...found.map((o) => [
                  o.name,
                  o.locked.slice(0, 12),
                  o.upstream.slice(0, 12),
                  o.behind === null ? '?' : String(o.behind),
                  o.files === null ? '?' : String(o.files),
                  o.via,
                ]),
              ]),
        {
          progress: 'fetching each plugin repository once to compare with the lock',
          // Like `npm outdated`: a script can tell "something to update" from "all current" by the exit status.
          failure: (found) =>
            found.length === 0
              ? null
              : `${found.length} plugin${found.length === 1 ? ' is' : 's are'} outdated; \`loadout plugins update\` moves them`,
        },
      );
    });

  plugins
    .command('migrate')
    .description(
      "list untracked files in the owner's repository that are byte-identical copies of an installed plugin's files, and plugins with a clone of their own that can share their repository's clone",
    )
    .option('--apply', 'delete exactly those files, and make those plugins folders of one clone per repository')
    .option('--json', 'print one JSON document')
    .action(async (options: PluginsOptions) => {
      await cli.run(options.json === true, () => manager().migrate({ apply: options.apply === true }), formatMigration);
    });
  return plugins;
}

function formatMigration(result: PluginMigration): string {
  const copies =
    result.files.length === 0
      ? ["no copies of plugin files in the owner's repository"]
      : [
          result.applied ? `deleted ${result.files.length} copies:` : `${result.files.length} copies (run with --apply to delete them):`,
          ...result.files.map((f) => `  ${f.path}  (same as plugin ${f.plugin})`),
        ];
  const clones = result.clones.map((share) => {
    const into = share.into === null ? 'one new clone' : `plugins/${share.into}`;
    const left = share.left.length === 0 ? '' : ` (left with their own clone, changed or moved: ${share.left.join(', ')})`;
    return result.applied
      ? `  ${share.plugins.join(', ')} now share ${into}${left}`
      : `  ${share.plugins.join(', ')} can share ${into} (run with --apply)`;
  });
  return [...copies, ...(clones.length === 0 ? [] : ['plugins with a clone of their own that share their repository:', ...clones])].join(
    '\n',
  );
}

function formatInstall(entry: ConsentedInstall): string {
  const from =
    entry.marketplace === null
      ? entry.url
      : `marketplace ${entry.marketplace.name} (${entry.url}${entry.path === '' ? '' : `, ${entry.path}`})`;
  return [
    `installed plugin ${entry.name} (${entry.format}${entry.manifest === null ? '' : `, ${entry.manifest}`}) at ${entry.commit.slice(0, 12)} from ${from}`,
    `  ${entry.root}`,
    `  loaded: ${entry.summary}`,
    ...formatConsent(entry),
    ...formatDiagnostics(entry.diagnostics),
  ].join('\n');
}

function formatInstallable(listing: InstallableListing): string {
  const lines = [`${listing.source} at ${listing.commit.slice(0, 12)}`, `  as one plugin it loads: ${listing.plugin.summary}`];
  if (listing.collections.length > 0) {
    lines.push('  skill collections (install one with --path FOLDER):');
    for (const collection of listing.collections) {
      const shown =
        collection.skills.slice(0, 8).join(', ') + (collection.skills.length > 8 ? ` and ${collection.skills.length - 8} more` : '');
      lines.push(`    ${collection.path}  ${collection.skills.length} skill${collection.skills.length === 1 ? '' : 's'}: ${shown}`);
    }
  }
  if (listing.marketplace !== null) {
    lines.push(
      `  a marketplace (${listing.marketplace.file}, ${listing.marketplace.plugins.length} plugins): loadout marketplace add ${listing.source}, then install NAME@${listing.marketplace.name ?? 'MARKETPLACE'}`,
      ...listing.marketplace.plugins.map(
        (plugin) => `    ${plugin.name}${plugin.path === null ? '' : `  (${plugin.path === '' ? '.' : plugin.path})`}`,
      ),
    );
  }
  return lines.join('\n');
}

function formatList(entries: readonly PluginEntry[]): string {
  if (entries.length === 0) return 'no plugins installed';
  return table([
    ['NAME', 'STATE', 'COMMIT', 'URL'],
    ...entries.map((e) => [e.name, e.enabled ? 'enabled' : 'disabled', e.commit.slice(0, 12), e.url]),
  ]);
}

import { resolve } from '@loadout/kernel';
import type { MarketplaceManager, MarketplaceSummary } from '@loadout/plugins';
import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';
import { table } from '../format.js';

interface MarketplaceOptions {
  json?: boolean;
  name?: string;
  ref?: string;
}

/** `loadout marketplace add <git-url> [--name N] | list | update [NAME...] | remove NAME`. */
export function registerMarketplaceCommand(program: Command, cli: CliContext): Command {
  const marketplace = program
    .command('marketplace')
    .description(
      'marketplaces are index repositories of plugins, cloned into the data folder; install from them with `plugins install NAME@MARKETPLACE`',
    );
  const manager = (): MarketplaceManager => resolve(cli.app(), cli.features.MarketplaceManager);

  marketplace
    .command('add')
    .argument(
      '<git-url>',
      'an https, ssh, git or file URL, or a local repository folder, holding .claude-plugin/marketplace.json or .agents/plugins/marketplace.json',
    )
    .description('clone a marketplace and record it')
    .option('--name <name>', "the marketplace's name (default: its index's name, else the repository's)")
    .option('--ref <ref>', 'a branch or tag to follow instead of the default branch')
    .option('--json', 'print one JSON document')
    .action(async (url: string, options: MarketplaceOptions) => {
      await cli.run(
        options.json === true,
        () =>
          manager().add(url, {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.ref === undefined ? {} : { ref: options.ref }),
          }),
        (added) =>
          [
            `added marketplace ${added.name} (${added.plugins} plugins) at ${added.commit.slice(0, 12)} from ${added.url}`,
            ...problems(added),
          ].join('\n'),
        { progress: `cloning ${url.slice(0, 120)}` },
      );
    });

  marketplace
    .command('list')
    .description('added marketplaces')
    .option('--json', 'print one JSON document')
    .action(async (options: MarketplaceOptions) => {
      await cli.run(
        options.json === true,
        () => manager().list(),
        (rows) =>
          rows.length === 0
            ? 'no marketplace added'
            : [
                table([
                  ['NAME', 'PLUGINS', 'COMMIT', 'URL'],
                  ...rows.map((row) => [row.name, String(row.plugins), row.commit.slice(0, 12), row.url]),
                ]),
                ...rows.flatMap(problems),
              ].join('\n'),
      );
    });

  marketplace
    .command('update')
    .argument('[names...]', 'marketplaces to update (default: all)')
    .description('follow each marketplace to its upstream branch; installed plugins move with `plugins update`')
    .option('--json', 'print one JSON document')
    .action(async (names: string[], options: MarketplaceOptions) => {
      await cli.run(
        options.json === true,
        () => manager().update(names),
        (updates) =>
          updates.length === 0
            ? 'no marketplace added'
            : updates
                .map((u) =>
                  u.status === 'updated' ? `${u.name}: updated ${u.from.slice(0, 12)} -> ${u.to.slice(0, 12)}` : `${u.name}: ${u.status}`,
                )
                .join('\n'),
        { progress: 'fetching marketplaces' },
      );
    });

  marketplace
    .command('remove')
    .argument('<name>', 'the marketplace')
    .description('remove a marketplace; plugins installed from it stay installed')
    .option('--json', 'print one JSON document')
    .action(async (name: string, options: MarketplaceOptions) => {
      await cli.run(
        options.json === true,
        () => manager().remove(name),
        (removed) => `removed marketplace ${removed.name}`,
      );
    });
  return marketplace;
}

function problems(summary: MarketplaceSummary): string[] {
  return summary.problems.map((problem) => `  ${summary.name}: ${problem}`);
}

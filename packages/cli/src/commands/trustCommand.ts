import { resolve, visibleText } from '@loadout/kernel';
import type { PluginInstall, PluginManager } from '@loadout/plugins';
import type { AuditEntry, RunnableCapability, TrustService } from '@loadout/trust';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';
import { table } from '../format.js';

/** What `plugins install` prints: the plugin, what it can run, and whether that was approved (`--yes`). */
export type ConsentedInstall = PluginInstall & { readonly runnable: readonly RunnableCapability[]; readonly approved: boolean };

/**
 * `loadout trust PROJECT | trust --list | untrust PROJECT | audit`, and `plugins approve NAME |
 * plugins diff NAME` on the plugins command: the owner's consent to what runs.
 */
export function registerTrustCommands(program: Command, plugins: Command, cli: CliContext): void {
  const service = (): TrustService => resolve(cli.app(), cli.features.TrustService);

  program
    .command('trust')
    .argument('[project]', 'the project folder whose own tasks and MCP servers (in its .agents folder) may run')
    .description("trust a project's runnable capabilities; until then they are listed but held")
    .option('--list', 'list the trusted projects')
    .option('--json', 'print one JSON document')
    .action(async (project: string | undefined, options: { list?: boolean; json?: boolean }) => {
      if (options.list === true) {
        await cli.run(
          options.json === true,
          () => {
            if (project !== undefined) throw new UsageError('trust --list takes no project');
            return service().listTrustedProjects();
          },
          (projects) => (projects.length === 0 ? 'no trusted projects' : table(projects.map((p) => [p.path, p.trustedAt]))),
        );
        return;
      }
      await cli.run(
        options.json === true,
        () => {
          if (project === undefined) throw new UsageError('name the project to trust, or use --list');
          return service().trustProject(project);
        },
        (trusted) => `trusted project ${trusted.path}: its tasks and MCP servers may run`,
      );
    });

  program
    .command('untrust')
    .argument('<project>', 'a trusted project folder')
    .description("hold a project's tasks and MCP servers again")
    .option('--json', 'print one JSON document')
    .action(async (project: string, options: { json?: boolean }) => {
      await cli.run(
        options.json === true,
        () => service().untrustProject(project),
        (result) => `project ${result.path} is no longer trusted: its tasks and MCP servers are held`,
      );
    });

  program
    .command('audit')
    .description(
      'every runnable capability (tasks, MCP servers, skills with scripts or tool grants): whose it is, approved or held, and what simple checks found in what it runs',
    )
    .option('--project <dir>', "include the project's own")
    .option('--json', 'print one JSON document')
    .action(async (options: { project?: string; json?: boolean }) => {
      await cli.run(options.json === true, () => service().audit(options.project ?? null), formatAudit);
    });

  plugins
    .command('approve')
    .argument('<name>', 'the plugin')
    .description(
      'approve what the plugin runs now (its task files, server scripts, what they import, input schemas and server definitions are fingerprinted); a later change holds it again',
    )
    .option('--commit <sha>', 'approve only if the plugin is still exactly this commit, as `plugins diff` showed it')
    .option('--json', 'print one JSON document')
    .action(async (name: string, options: { commit?: string; json?: boolean }) => {
      await cli.run(
        options.json === true,
        () => {
          if (options.commit !== undefined && !/^[0-9a-f]{40,64}$/.test(options.commit))
            throw new UsageError('--commit takes the full commit id `plugins diff` shows');
          return service().approvePlugin(name, options.commit === undefined ? {} : { commit: options.commit });
        },
        (result) => [`approved plugin ${result.plugin} at ${result.commit.slice(0, 12)}`, ...formatRunnable(result.approved)].join('\n'),
      );
    });

  plugins
    .command('diff')
    .argument('<name>', 'the plugin')
    .description('what changed in the parts the plugin runs since it was approved (a git diff limited to them)')
    .option('--json', 'print one JSON document')
    .action(async (name: string, options: { json?: boolean }) => {
      await cli.run(
        options.json === true,
        () => service().diffPlugin(name),
        (result) =>
          [
            `plugin ${result.plugin}: approved at ${result.from.slice(0, 12)}, now at ${result.to.slice(0, 12)}`,
            ...(result.held.length === 0 ? ['nothing is held'] : [`held (${result.held.length}):`, ...formatRunnable(result.held)]),
            result.diff === '' ? 'no change to what it runs' : result.diff,
            ...(result.truncated
              ? [`[… the diff is cut here; the rest is in \`git diff ${result.from.slice(0, 12)} HEAD\` in the plugin's folder]`]
              : []),
            `to approve what you reviewed here: loadout plugins approve ${result.plugin} --commit ${result.to}`,
          ].join('\n'),
      );
    });
}

/** After `plugins install`: what the plugin can run, approved at once with `--yes`, else held. */
export async function withConsent(cli: CliContext, entry: PluginInstall, yes: boolean): Promise<ConsentedInstall> {
  const service = resolve(cli.app(), cli.features.TrustService);
  if (!yes) return { ...entry, runnable: await service.runnableOfPlugin(entry.name), approved: false };
  const { approved } = await service.approvePlugin(entry.name);
  // Approved in the same step: what the install counted as held is not held any more.
  const loaded = entry.loaded.map((kind) => ({ ...kind, held: 0 }));
  return { ...entry, loaded, summary: cli.features.summarizeLoaded(loaded), runnable: approved, approved: true };
}

/** One plugin's update, with what of it is held now (what the update changed, and anything never approved). */
export type UpdateWithHeld = Awaited<ReturnType<PluginManager['update']>>[number] & { readonly held: readonly RunnableCapability[] };

/** After `plugins update`: which runnable capabilities of each plugin are held now. */
export async function withHeld(cli: CliContext, updates: Awaited<ReturnType<PluginManager['update']>>): Promise<UpdateWithHeld[]> {
  const service = resolve(cli.app(), cli.features.TrustService);
  const held: UpdateWithHeld[] = [];
  for (const update of updates)
    held.push({ ...update, held: (await service.runnableOfPlugin(update.name)).filter((item) => item.held !== null) });
  return held;
}

/** What stays held of one plugin on this machine, and the command that frees it. */
export interface HeldPlugin {
  readonly plugin: string;
  /** `kind/id` of each held capability. */
  readonly capabilities: readonly string[];
  readonly free: string;
}

/** After `plugins sync`: every installed plugin with something held on this machine (approvals are per machine). */
export async function heldPlugins(cli: CliContext, plugins: readonly string[]): Promise<HeldPlugin[]> {
  const service = resolve(cli.app(), cli.features.TrustService);
  const held: HeldPlugin[] = [];
  for (const plugin of plugins) {
    const items = (await service.runnableOfPlugin(plugin)).filter((item) => item.held !== null);
    if (items.length > 0)
      held.push({ plugin, capabilities: items.map((item) => `${item.kind}/${item.id}`), free: `loadout plugins approve ${plugin}` });
  }
  return held;
}

/** The lines `plugins sync` ends with: what stays held here, each with the command that frees it. */
export function formatHeldPlugins(held: readonly HeldPlugin[]): string[] {
  if (held.length === 0) return ['nothing is held on this machine'];
  return [
    `held on this machine until approved (${held.length} plugin${held.length === 1 ? '' : 's'}):`,
    ...held.map((item) => `  ${item.plugin}: ${item.capabilities.map((id) => visibleText(id)).join(', ')}; free with: ${item.free}`),
  ];
}

/** The words `plugins update` adds for one plugin's holds. */
export function formatHeld(update: UpdateWithHeld): string {
  if (update.held.length === 0) return '';
  return `\n  held until approved (${update.held.length}): ${update.held.map((item) => visibleText(`${item.kind}/${item.id}`)).join(', ')}; see loadout plugins diff ${update.name}`;
}

/** The lines `plugins install` adds about consent. */
export function formatConsent(install: ConsentedInstall): string[] {
  if (install.runnable.length === 0) return ['  it runs nothing (no tasks, no MCP servers, no skills with scripts or tool grants)'];
  return [
    `  it can run (${install.runnable.length}):`,
    ...formatRunnable(install.runnable),
    install.approved ? '  approved (--yes)' : `  held until you approve: loadout plugins approve ${install.name}`,
  ];
}

// What a plugin wrote (an id, a command line, a finding quoting a script) is one line each here,
// line breaks shown as escapes: the output's own lines are the only lines (CliContext makes the
// other control characters visible in the whole output).
function formatRunnable(items: readonly RunnableCapability[]): string[] {
  return items.map(
    (item) =>
      `    ${visibleText(`${item.kind}/${item.id}`)}: ${visibleText(item.runs)}${item.held === null ? '' : `  [held: ${item.held.decidedBy}]`}`,
  );
}

function formatAudit(entries: readonly AuditEntry[]): string {
  if (entries.length === 0) return 'nothing runnable';
  const rows = [
    ['CAPABILITY', 'OWNER', 'STATUS', 'RUNS'],
    ...entries.map((e) => [
      visibleText(`${e.kind}/${e.id}`),
      visibleText(e.owner),
      e.held === null ? 'approved' : `held (${e.held.decidedBy})`,
      visibleText(e.runs),
    ]),
  ];
  const lines = table(rows).split('\n');
  const findings = entries.flatMap((e) =>
    e.findings.map(
      (f) => `  ${visibleText(`${e.kind}/${e.id}`)}: ${f.code}: ${visibleText(`${f.file === undefined ? '' : `${f.file} `}${f.message}`)}`,
    ),
  );
  return [...lines, ...(findings.length === 0 ? ['no findings'] : [`findings (${findings.length}):`, ...findings])].join('\n');
}

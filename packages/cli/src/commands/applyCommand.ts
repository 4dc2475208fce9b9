import fs from 'node:fs';
import path from 'node:path';
import { trackedFs, withReadLog } from '@loadout/files';
import { type Diagnostic, resolve } from '@loadout/kernel';
import type { ApplyMode, ApplyResult, BridgeRequest, LoadoutLauncher, RetiredListing, RuntimeApplier } from '@loadout/runtimes';
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../CliContext.js';
import type { ApplyProofRecorder } from '../ApplyProofRecorder.js';
import { proofDataDir } from '../applyProof.js';
import { CLI_MAIN, CLI_PACKAGE_JSON, REPOSITORY_ROOT } from '../cliPaths.js';
import { formatDiagnostics, table } from '../format.js';

interface ApplyOptions {
  runtime: string[];
  project?: string;
  dryRun?: boolean;
  check?: boolean;
  json?: boolean;
  verbose?: boolean;
  mcpBridge?: boolean;
}

/** This command line's own entry point, `dist/main.js`, for a bridge when `loadout` is not on PATH. */

/** The variables that move a Loadout workspace; a bridge passes those set here on to `loadout mcp`. */
const PLACE_VARIABLES = ['LOADOUT_HOME', 'LOADOUT_CAPABILITIES_DIR', 'LOADOUT_DATA_DIR'] as const;

/**
 * How the runtimes start Loadout as an MCP server: `loadout mcp` when a `loadout` executable is on
 * PATH (so an updated checkout is picked up), else this very command line by absolute path (node and
 * its `main.js`). Either way it gets the workspace variables this command was given, resolved, so
 * it serves the same workspace; without them it finds its default one exactly as this command did.
 */
export function loadoutBridge(cli: CliContext, mode: BridgeRequest['mode']): BridgeRequest {
  const launcher = loadoutLauncher(cli);
  return { mode, command: launcher.command, args: [...launcher.args, 'mcp'], env: launcher.env };
}

/** How a runtime starts this command line (see {@link loadoutBridge}); `mcp run` follows its words. */
export function loadoutLauncher(cli: CliContext): LoadoutLauncher {
  const places = {
    LOADOUT_HOME: cli.places.home,
    LOADOUT_CAPABILITIES_DIR: cli.places.capabilitiesDir,
    LOADOUT_DATA_DIR: cli.places.dataDir,
  };
  const env = Object.fromEntries(PLACE_VARIABLES.filter((name) => (cli.env[name] ?? '') !== '').map((name) => [name, places[name]]));
  const onPath = (cli.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && isExecutable(path.join(dir, 'loadout')));
  return onPath ? { command: 'loadout', args: [], env } : { command: process.execPath, args: [CLI_MAIN], env };
}

/**
 * Tells the runtimes package how to start this command line, so apply can write servers whose
 * secrets are resolved by `loadout mcp run`. Registered once per process, by the commands that apply.
 */
export function registerLoadoutLauncher(cli: CliContext): void {
  const app = cli.app();
  if (!app.isRegistered(cli.features.LoadoutLauncher, false))
    app.register(cli.features.LoadoutLauncher, { useValue: loadoutLauncher(cli) });
}

/** Whether `file` is a file this user may run. */
export function isExecutable(file: string): boolean {
  try {
    trackedFs.accessSync(file, fs.constants.X_OK);
    return trackedFs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * `loadout apply [--runtime NAME]... [--project DIR] [--dry-run|--check]` writes the session's skills
 * into agent runtimes' folders; `loadout apply restore [ENTRY]` lists retired skills or puts one
 * back. `--check` prints the plan and exits 1 when the folders differ from it.
 */
export function registerApplyCommand(program: Command, cli: CliContext): Command {
  const applier = (): RuntimeApplier => resolve(cli.app(), cli.features.RuntimeApplier);
  const apply = program
    .command('apply')
    .description(
      "write the session's skills into agent runtimes' folders and its MCP servers into their configuration (every verified runtime by default; the others only report)",
    )
    .option(
      '--runtime <name>',
      'only this runtime (repeatable); default: every verified one',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--project <dir>',
      'the folder the agent works in: its project skills and folders are planned too (default: the nearest folder at or above the working folder with .agents/)',
    )
    .option('--dry-run', 'print the plan, write nothing')
    .option('--check', 'print the plan, write nothing, exit 1 when the runtime folders differ from it')
    .option(
      '--mcp-bridge',
      "register Loadout itself (loadout mcp) in the runtimes' user MCP configuration; remembered until --no-mcp-bridge",
    )
    .option('--no-mcp-bridge', 'remove the registration of Loadout itself')
    .option('--verbose', 'also list every change, every finding (info too) and why each runtime was or was not planned')
    .option('--json', 'print one JSON document (the whole plan, with or without --verbose)')
    .action(async (options: ApplyOptions) => {
      const recorder = await proofRecorder(cli, options);
      if (recorder === null) return runApply(cli, options, null);
      try {
        // The recorder hears what this action, and only it, reads (see ReadLog in @loadout/files).
        await withReadLog(recorder, () => runApply(cli, options, recorder));
      } finally {
        recorder.stop();
      }
    });

  apply
    .command('restore')
    .argument('[entry]', 'the trash entry to put back; without it, list the retired skills and server entries')
    .description('list skills and MCP server entries retired into the trash, or put one back where it was')
    .option('--json', 'print one JSON document')
    .action(async (entry: string | undefined, _options: { json?: boolean }, command: Command) => {
      // `--json` after `restore` may be taken by `apply`, which declares it too: read both.
      const json = command.optsWithGlobals<{ json?: boolean }>().json === true;
      await cli.run(
        json,
        async () => (entry === undefined ? applier().listRetired() : await applier().restore(entry)),
        (outcome) =>
          'restored' in outcome
            ? `restored ${outcome.restored.name} (${outcome.restored.runtime}) to ${outcome.restored.path}`
            : formatRetired(outcome),
      );
    });
  return apply;
}

/** Which runtimes got nothing, for the one line on stderr; the plan on stdout says why. */
function refusedSummary(result: ApplyResult): string {
  const refused = [
    ...result.runtimes
      .filter((part) => part.status === 'conflict' || part.status === 'blocked')
      .map((part) => `${part.runtime} (${part.status})`),
    ...result.runtimes.filter((part) => part.mcp?.status === 'conflict').map((part) => `${part.runtime} MCP configuration (conflict)`),
    // A runtime applied but for one root (a root a link takes out of the project, say).
    ...result.runtimes
      .filter((part) => part.status === 'ok')
      .flatMap((part) => [
        ...new Set(part.findings.filter((finding) => finding.severity === 'error').map((finding) => `${part.runtime} (${finding.code})`)),
      ]),
  ];
  const others = result.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.code);
  const what = [...refused, ...others].join(', ');
  return `not applied: ${what}; ${result.applied ? 'every other runtime was applied' : 'nothing was written'} (the plan says why)`;
}

/** How many findings of one code the plain output shows before it counts the rest. */
const FINDINGS_PER_CODE = 5;

/**
 * The plan for people, most telling first: which runtimes were planned (and why the others were
 * not), each runtime's verdict with its counts, one line per folder or file written, then the
 * errors and warnings (at most a few per code) and the summary. `--verbose` adds every change,
 * every finding (the `info` ones too) and why each runtime was or was not planned; `--json` prints
 * the whole result whatever the flags.
 */
export function formatResult(result: ApplyResult, verbose = false): string {
  const lines: string[] = [];
  if (result.project !== null) lines.push(`project: ${result.project}`);
  lines.push(...selectionLines(result, verbose));
  lines.push(
    ...indentAll(
      table(result.runtimes.map(verdictRow))
        .split('\n')
        .filter((line) => line !== ''),
    ),
  );
  // Under --dry-run: how each runtime whose listing is measured will list the skills in its prompt.
  lines.push(...(result.listings ?? []));
  const places = placeRows(result);
  if (places.length > 0) lines.push('written into:', ...indentAll(table(places).split('\n')));
  // How each plugin reaches a runtime that can read plugins in place: one line a plugin, few enough to always show.
  for (const part of result.runtimes) {
    if (part.plugins === undefined || part.plugins.length === 0) continue;
    lines.push(`${part.runtime} plugins:`, ...part.plugins.map((placement) => `  plugin ${placement.plugin}: ${placement.reason}`));
  }
  if (verbose) {
    for (const part of result.runtimes) {
      if (part.changes.length === 0) continue;
      lines.push(`${part.runtime}:`, indent(table(part.changes.map(changeRow))));
    }
  }
  const findings = [...result.findings, ...result.runtimes.flatMap((part) => part.findings)];
  lines.push(...(verbose ? formatDiagnostics(findings) : shortDiagnostics(findings)));
  if (result.retired.length > 0) {
    lines.push('retired (loadout apply restore ID brings one back):', indent(formatRetired({ retired: result.retired, damaged: [] })));
  }
  lines.push(summary(result));
  return lines.join('\n');
}

/** Which runtimes the plan covers and on what grounds; the others by name, grouped by why. */
function selectionLines(result: ApplyResult, verbose: boolean): string[] {
  const { selection } = result;
  const planned = selection.runtimes.filter((entry) => entry.selected).map((entry) => entry.runtime);
  const grounds =
    selection.basis === 'named'
      ? 'named with --runtime'
      : selection.basis === 'chosen'
        ? 'chosen with `loadout runtimes use`'
        : 'detected on this machine; `loadout runtimes use NAME…` chooses';
  const lines = [`runtimes: ${planned.length === 0 ? 'none' : planned.join(', ')} (${grounds})`];
  const left = selection.runtimes.filter((entry) => !entry.selected);
  if (verbose) {
    for (const entry of left) lines.push(`  skipped ${entry.runtime}: ${entry.reason}`);
    return lines;
  }
  const byWhy = new Map<string, string[]>();
  for (const entry of left) {
    const why = entry.reason.startsWith('not detected') ? 'not detected on this machine' : entry.reason;
    byWhy.set(why, [...(byWhy.get(why) ?? []), entry.runtime]);
  }
  for (const [why, names] of byWhy) lines.push(`  skipped (${why}): ${names.join(', ')}`);
  return lines;
}

type RuntimePart = ApplyResult['runtimes'][number];

/** `create 3, update 1` for a list of changes; `nothing to change` for none. */
function countActions(changes: readonly { action: string }[]): string {
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.action, (counts.get(change.action) ?? 0) + 1);
  return counts.size === 0 ? 'nothing to change' : [...counts].map(([action, count]) => `${action} ${count}`).join(', ');
}

/** One runtime's verdict and counts: its skills, its servers, what it will see. */
function verdictRow(part: RuntimePart): string[] {
  if (part.status === 'unconfirmed') return [part.runtime, 'unconfirmed', `writes nothing of its own, sees ${part.sees.length} skills`];
  const skills = part.changes.filter((change) => change.kind === 'skill');
  const servers = part.changes.filter((change) => change.kind === 'server');
  const mcp =
    part.mcp === null
      ? ''
      : `; servers: ${countActions(servers)}${part.mcp.status === 'ok' ? '' : ` (MCP configuration: ${part.mcp.status})`}`;
  // Agents, commands and hooks it loads of Loadout's (a plugin read in place brings its own), when the plan looked at them.
  const documents =
    part.documents === null || part.documents.sees.length === 0 ? '' : `; agents, commands, hooks: sees ${part.documents.sees.length}`;
  return [part.runtime, part.status, `skills: ${countActions(skills)}, sees ${part.sees.length}${mcp}${documents}`];
}

/** One line per folder or file something is written into (or taken from), with the runtimes it serves. */
function placeRows(result: ApplyResult): string[][] {
  const places = new Map<string, { changes: Map<string, { action: string }>; runtimes: Set<string> }>();
  for (const part of result.runtimes) {
    for (const change of part.changes) {
      if (change.action === 'skip' || change.path === null) continue;
      const where = change.kind === 'skill' ? parentOf(change.path) : change.path;
      const place = places.get(where) ?? { changes: new Map(), runtimes: new Set<string>() };
      places.set(where, place);
      // A change two runtimes share (one folder) is one change.
      place.changes.set(`${change.kind}\0${change.action}\0${change.path}\0${change.name}`, change);
      place.runtimes.add(part.runtime);
    }
  }
  return [...places].map(([where, place]) => [where, countActions([...place.changes.values()]), `for ${[...place.runtimes].join(', ')}`]);
}

/** The folder of a redacted path. */
function parentOf(shown: string): string {
  const cut = shown.lastIndexOf('/');
  return cut <= 0 ? shown : shown.slice(0, cut);
}

function changeRow(change: RuntimePart['changes'][number]): string[] {
  const shownName = change.id !== undefined && change.id !== change.name ? `${change.name} (${change.id})` : change.name;
  return [
    change.action,
    change.kind,
    shownName,
    change.path ?? '-',
    change.action === 'skip' || change.source === null ? change.reason : `from ${change.source}`,
  ];
}

/**
 * Errors and warnings, each message once (a shared folder's finding is said by every runtime that
 * reads it), at most {@link FINDINGS_PER_CODE} per code with a count of the rest; `info` ones counted.
 */
function shortDiagnostics(findings: readonly Diagnostic[]): string[] {
  const seen = new Set<string>();
  const unique = findings.filter((finding) => {
    const key = `${finding.severity}\0${finding.code}\0${finding.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const shown: Diagnostic[] = [];
  const more = new Map<string, number>();
  for (const finding of unique) {
    if (finding.severity === 'info') continue;
    const already = shown.filter((candidate) => candidate.code === finding.code).length;
    if (already < FINDINGS_PER_CODE) shown.push(finding);
    else more.set(finding.code, (more.get(finding.code) ?? 0) + 1);
  }
  const lines = formatDiagnostics(shown);
  for (const [code, count] of more) lines.push(`  … ${count} more ${code} (--verbose shows every one)`);
  const infos = unique.length - shown.length - [...more.values()].reduce((sum, count) => sum + count, 0);
  if (infos > 0) lines.push(`${infos} info finding${infos === 1 ? '' : 's'} (--verbose shows them)`);
  return lines;
}

function indentAll(lines: readonly string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/**
 * The summary line with what deserves a look beside it: skills written though not portable (a
 * runtime that keeps to the Agent Skills rules may not load them).
 */
function summary(result: ApplyResult): string {
  const notPortable = new Set(
    result.runtimes.flatMap((part) =>
      part.findings.filter((finding) => finding.code === 'SKILL_NOT_PORTABLE').map((finding) => finding.path),
    ),
  ).size;
  const line = outcome(result);
  return notPortable === 0 ? line : `${line}; ${notPortable} skill${notPortable === 1 ? '' : 's'} not portable (SKILL_NOT_PORTABLE above)`;
}

function outcome(result: ApplyResult): string {
  const count = `${result.changeCount} change${result.changeCount === 1 ? '' : 's'}`;
  if (!result.ok) {
    if (result.mode === 'apply')
      return result.applied ? `applied ${count} to the runtimes not blocked; the others got nothing` : 'blocked: nothing was written';
    return `blocked: apply would write ${count} to the runtimes not blocked, nothing to the others`;
  }
  if (result.mode === 'dry-run') return `dry run: ${count} planned, nothing written`;
  if (result.mode === 'check') return result.upToDate ? 'check: the runtime folders match the plan' : `check: ${count} pending`;
  return result.applied ? `applied ${count}` : 'nothing to change';
}

function formatRetired({ retired, damaged }: RetiredListing): string {
  const lines =
    retired.length === 0
      ? ['nothing retired']
      : [
          table([
            ['ID', 'KIND', 'NAME', 'RUNTIME', 'WAS IN'],
            ...retired.map((entry) => [entry.id, entry.kind, entry.name, entry.runtime, entry.path]),
          ]),
        ];
  for (const entry of damaged) lines.push(`damaged: ${entry.id}: ${entry.problem}`);
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * A recorder of what this `apply` reads, for the proof that lets the next one with nothing changed
 * print without planning (applyProof.ts); null when the run cannot give one: not from the bundle,
 * not a real apply, or a database that is not a file in the data folder. Its module is loaded here,
 * on use: `loadout session` and the other commands never load it.
 */
async function proofRecorder(cli: CliContext, options: ApplyOptions): Promise<ApplyProofRecorder | null> {
  if (cli.build === null || options.dryRun === true || options.check === true) return null;
  if ((cli.databaseUrl ?? cli.env.LOADOUT_DATABASE_URL ?? '') !== '') return null;
  // Without HOME the home folder comes from the user database, which is no file read through `fs`.
  if ((cli.env.HOME ?? '') === '') return null;
  const cwd = process.cwd();
  const dataDir = proofDataDir(cli.env, REPOSITORY_ROOT, cwd);
  if (dataDir !== cli.places.dataDir) return null;
  const { ApplyProofRecorder } = await import('../ApplyProofRecorder.js');
  const context = { argv: process.argv, env: cli.env, cwd, build: cli.build, dataDir, stdoutIsTerminal: process.stdout.isTTY === true };
  return new ApplyProofRecorder(context, [CLI_PACKAGE_JSON, path.resolve(process.argv[1] ?? CLI_MAIN)]);
}

async function runApply(cli: CliContext, options: ApplyOptions, recorder: ApplyProofRecorder | null): Promise<void> {
  await cli.run(
    options.json === true,
    async () => {
      if (options.dryRun === true && options.check === true) throw new UsageError('--dry-run and --check cannot be combined');
      checkRuntimeNames(cli, options.runtime);
      const mode: ApplyMode = options.check === true ? 'check' : options.dryRun === true ? 'dry-run' : 'apply';
      return applySession(cli, {
        project: options.project,
        runtimes: options.runtime,
        mode,
        mcpBridge: options.mcpBridge === undefined ? 'keep' : options.mcpBridge ? 'on' : 'off',
      });
    },
    (result) => formatResult(result, options.verbose === true),
    {
      // The plan on stdout says why; stderr gets the one line.
      failure: applyFailure,
      progress: 'planning the runtimes (and writing, unless --dry-run or --check)',
      // Only a run that wrote nothing and ended well proves that the next one would print the same.
      printed: (result, stdout, failed) =>
        recorder?.finish(stdout, !failed && result.mode === 'apply' && result.upToDate && !result.applied && result.retired.length === 0),
    },
  );
}

/** Refuses a `--runtime` name no adapter has, naming the known ones; before anything is done. */
export function checkRuntimeNames(cli: CliContext, names: readonly string[]): void {
  const known = resolve(cli.app(), cli.features.RuntimePlanner)
    .adapters()
    .map((adapter) => adapter.name);
  const unknown = names.find((name) => !known.includes(name));
  if (unknown !== undefined) throw new UsageError(`unknown runtime "${unknown.slice(0, 64)}"; known: ${known.join(', ')}`);
}

/** Plans the session for the runtimes and, in `apply` mode, writes it: what `loadout apply` does. */
export function applySession(
  cli: CliContext,
  request: {
    readonly project: string | undefined;
    readonly runtimes: readonly string[];
    readonly mode: ApplyMode;
    readonly mcpBridge: BridgeRequest['mode'];
  },
): Promise<ApplyResult> {
  registerLoadoutLauncher(cli);
  return resolve(cli.app(), cli.features.RuntimeApplier).apply({
    project: cli.projectFor(request.project),
    runtimes: request.runtimes,
    mode: request.mode,
    mcpBridge: loadoutBridge(cli, request.mcpBridge),
  });
}

/** The one line on stderr when an apply did not do all it was asked (the plan on stdout says why); null when it did. */
export function applyFailure(result: ApplyResult): string | null {
  if (result.mode === 'check' && !result.upToDate) return `the runtime folders differ from the plan (${result.changeCount} pending)`;
  if (result.mode === 'apply' && !result.ok) return refusedSummary(result);
  return null;
}

import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { isLoadoutError, trackedFs } from '@loadout/files';
import type { ApplyResult } from '@loadout/runtimes';
import type { Command } from 'commander';
import { type CliContext, PROJECT_OPTION_HELP } from '../CliContext.js';
import { fixFor } from '../errorFixes.js';
import { colorsFor } from '../terminal.js';
import { serverAddress } from '../serverClient.js';
import { isExecutable, loadoutBridge, registerLoadoutLauncher } from './applyCommand.js';

/** `ok`: nothing to do; `note`: worth knowing, works as it is; `problem`: something does not work as set up. */
type CheckStatus = 'ok' | 'note' | 'problem';

interface Check {
  readonly check: string;
  readonly status: CheckStatus;
  readonly message: string;
  /** The one next step, for a note or a problem. */
  readonly fix: string | null;
}

interface DoctorReport {
  readonly project: string | null;
  readonly problems: number;
  readonly checks: readonly Check[];
}

/**
 * `loadout doctor [--project DIR]`: looks at everything a working setup needs and says what is
 * wrong, each with its fix; exits 1 when it found a problem. Writes nothing: the runtimes are
 * judged by the same plan as `apply --check`, the plugins by the lock as `plugins sync --frozen`.
 */
export function registerDoctorCommand(program: Command, cli: CliContext): void {
  program
    .command('doctor')
    .description(
      'check the command on PATH, the server, the runtimes, the plugins against the lock, held and skipped items, the MCP bridge; each problem with its fix',
    )
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (options: { project?: string; json?: boolean }) => {
      await cli.run(
        options.json === true,
        async (): Promise<DoctorReport> => {
          const project = cli.projectFor(options.project);
          const checks = [
            checkPath(cli),
            await checkServer(cli),
            ...(await checkRuntimes(cli, project)),
            await checkLock(cli),
            ...(await checkHeld(cli, project)),
          ];
          return { project, problems: checks.filter((check) => check.status === 'problem').length, checks };
        },
        (report) => formatReport(report, cli),
        {
          failure: (report) =>
            report.problems === 0 ? null : `${report.problems} problem${report.problems === 1 ? '' : 's'} found; each says its fix above`,
        },
      );
    });
}

function checkPath(cli: CliContext): Check {
  const dirs = (cli.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  const found = dirs.map((dir) => path.join(dir, 'loadout')).find(isExecutable);
  if (found === undefined) {
    return {
      check: 'command',
      status: 'note',
      message: 'no `loadout` on PATH: runtimes start Loadout by the absolute path of this checkout',
      fix: '`bash scripts/install-bin.sh` puts a wrapper in ~/.local/bin',
    };
  }
  const wrapper = trackedFs.readFileSync(found, 'utf8').slice(0, 4096);
  const main = /exec "\$node" '([^']+)'/.exec(wrapper)?.[1];
  if (main !== undefined && !trackedFs.existsSync(main)) {
    return {
      check: 'command',
      status: 'problem',
      message: `${found} runs ${main}, which is gone (the checkout moved or was not built)`,
      fix: '`bash scripts/install-bin.sh` again from the checkout',
    };
  }
  return { check: 'command', status: 'ok', message: `loadout on PATH at ${found}`, fix: null };
}

async function checkServer(cli: CliContext): Promise<Check> {
  const server = serverAddress(cli);
  let answered = false;
  try {
    await fetch(server.url, { method: 'HEAD', signal: AbortSignal.timeout(2000) });
    answered = true;
  } catch {
    answered = false;
  }
  if (answered) return { check: 'server', status: 'ok', message: `answering at ${server.url}`, fix: null };
  if (server.announced)
    return {
      check: 'server',
      status: 'problem',
      message: `the server said it listens at ${server.url}, but nobody answers there (it was killed?)`,
      fix: '`loadout serve` (or `npm start`) starts it again',
    };
  return {
    check: 'server',
    status: 'note',
    message: 'no server running (the screen, HTTP and queued jobs need one)',
    fix: '`loadout serve` (or `npm start`)',
  };
}

async function checkRuntimes(cli: CliContext, project: string | null): Promise<Check[]> {
  let result: ApplyResult;
  try {
    const bridge = loadoutBridge(cli, 'keep');
    registerLoadoutLauncher(cli);
    result = await resolve(cli.app(), cli.features.RuntimeApplier).apply({ project, runtimes: [], mode: 'check', mcpBridge: bridge });
  } catch (error) {
    return [failedCheck('runtimes', error)];
  }
  const checks: Check[] = [];
  const apply = project === null ? '`loadout apply`' : `\`loadout apply --project ${project}\``;
  for (const part of result.runtimes) {
    if (part.status === 'unconfirmed') continue;
    const writes = part.changes.filter((change) => change.action !== 'skip');
    const skips = part.changes.filter((change) => change.action === 'skip');
    if (part.status === 'conflict' || part.status === 'blocked') {
      const reasons = part.findings.filter((finding) => finding.severity === 'error').map((finding) => finding.message);
      checks.push({
        check: `runtime ${part.runtime}`,
        status: 'problem',
        message: `${part.status}: ${reasons.join('; ') || 'the plan says why'}`,
        fix: `\`loadout apply --check\` shows the plan; \`loadout why NAME\` each copy`,
      });
    } else if (writes.length > 0 || part.mcp?.status === 'conflict') {
      checks.push({
        check: `runtime ${part.runtime}`,
        status: 'problem',
        message: `out of date: ${writes.length} change${writes.length === 1 ? '' : 's'} to write (${writes
          .slice(0, 3)
          .map((change) => `${change.action} ${change.name}`)
          .join(', ')}${writes.length > 3 ? ', …' : ''})`,
        fix: apply,
      });
    } else {
      checks.push({ check: `runtime ${part.runtime}`, status: 'ok', message: 'in sync', fix: null });
    }
    for (const skip of skips)
      checks.push({
        check: `runtime ${part.runtime}`,
        status: 'note',
        message: `skips ${skip.name}: ${skip.reason}`,
        fix: `\`loadout why ${skip.name}\``,
      });
  }
  const bridge = loadoutBridge(cli, 'keep');
  checks.push({
    check: 'MCP bridge',
    status: 'ok',
    message:
      bridge.command === 'loadout'
        ? 'runtimes that register Loadout start `loadout mcp` from PATH'
        : `runtimes that register Loadout start it by absolute path (${bridge.args[0] ?? ''})`,
    fix: null,
  });
  return checks;
}

async function checkLock(cli: CliContext): Promise<Check> {
  try {
    const result = await resolve(cli.app(), cli.features.PluginLockSync).sync({ frozen: true });
    return { check: 'plugins', status: 'ok', message: `plugins/ matches the lock (${result.unchanged.length} plugins)`, fix: null };
  } catch (error) {
    // No lock and no plugin: nothing to compare, which is how a fresh clone starts.
    if (
      isLoadoutError(error) &&
      error.code === 'PLUGIN_LOCK_MISSING' &&
      (await resolve(cli.app(), cli.features.PluginManager).list()).length === 0
    ) {
      return { check: 'plugins', status: 'ok', message: 'no plugins installed and no lock', fix: null };
    }
    return failedCheck('plugins', error, '`loadout plugins sync` makes plugins/ match the lock');
  }
}

async function checkHeld(cli: CliContext, project: string | null): Promise<Check[]> {
  try {
    const entries = await resolve(cli.app(), cli.features.CapabilityStateService).resolveCapabilityState({ project });
    return entries
      .filter((entry) => entry.held !== null)
      .map((entry) => ({
        check: 'held',
        status: 'note' as const,
        message: `${entry.kind}/${entry.id}${entry.plugin === null ? '' : ` of plugin ${entry.plugin}`} is held: ${entry.held ?? ''}`,
        fix:
          entry.plugin === null
            ? '`loadout trust PROJECT` if you trust the project'
            : `\`loadout plugins diff ${entry.plugin}\`, then \`loadout plugins approve ${entry.plugin}\``,
      }));
  } catch (error) {
    return [failedCheck('held', error)];
  }
}

/** A check that could not be made is a problem, with the error's own fix when it has one. */
function failedCheck(check: string, error: unknown, fix: string | null = null): Check {
  const message = error instanceof Error ? error.message.split('\n').join(' ') : String(error);
  return { check, status: 'problem', message, fix: fix ?? (isLoadoutError(error) ? fixFor(error.code) : null) };
}

function formatReport(report: DoctorReport, cli: CliContext): string {
  const colors = colorsFor(process.stdout, cli.env);
  const mark = { ok: colors.green('ok     '), note: colors.yellow('note   '), problem: colors.red('problem') };
  const lines = report.checks.map(
    (check) => `${mark[check.status]} ${check.check}: ${check.message}${check.fix === null ? '' : `\n        fix: ${check.fix}`}`,
  );
  lines.push(report.problems === 0 ? 'no problems found' : `${report.problems} problem${report.problems === 1 ? '' : 's'} found`);
  return lines.join('\n');
}

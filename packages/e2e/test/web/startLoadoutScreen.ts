import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { git, gitCommit, gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach } from 'vitest';
import { launchChromium } from './launchChromium.js';

const REPO = path.resolve(import.meta.dirname, '../../../..');
/** The notification catalogue core ships: it declares the task-run events the inbox shows. */
const RUN_CATALOGUE = path.join(REPO, 'capabilities/notifications/loadout-runs.json');
export const TOKEN = 'screen-test-token-0123456789';
export const PLUGIN_NAME = 'acme-tools';

/** A task implementation that prints, waits for the file named in its input, then prints again. */
const GATED_TASK = `import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');
console.log('first line: started');
const until = Date.now() + 20000;
while (input.release && !fs.existsSync(input.release) && Date.now() < until) await new Promise((done) => setTimeout(done, 50));
console.log('second line: released');
`;

export interface LoadoutScreen {
  /** The workspace (`LOADOUT_HOME`): `capabilities/` is the owner's git repository. */
  readonly home: string;
  readonly capabilities: string;
  /** A project folder with its own `.agents/`. */
  readonly project: string;
  /** A plugin's git repository, installable from `pluginUrl`. */
  readonly pluginRepo: string;
  readonly pluginUrl: string;
  readonly url: string;
  readonly browser: BrowserContext;
  readonly page: Page;
  /** Runs the built `loadout` command against this workspace. */
  loadout(...args: string[]): string;
  /** Opens the screen with the token in the address, as a link from `loadout serve` would. */
  open(options?: { project?: string | null; view?: string }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * A real workspace in a temporary folder (the owner's capabilities as a git repository, a project
 * whose `pdf` skill collides with the owner's, a plugin repository), the real server as a child
 * process on a free port, and a fresh Chromium profile.
 */
export async function startLoadoutScreen(
  options: {
    installPlugin?: boolean;
    approvePlugin?: boolean;
    viewport?: { width: number; height: number };
    /** Extra skill folders (`bulk-00001` …) in the owner's repository, for the tests of a large screen. */
    bulkSkills?: number;
  } = {},
): Promise<LoadoutScreen> {
  if (!fs.existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`pnpm build\` before the browser tests`);
  const root = testdir();
  const home = path.join(root, 'home');
  const capabilities = path.join(home, 'capabilities');
  // The scratch HOME is a machine with Claude Code and Codex installed: apply finds them.
  for (const folder of ['.claude', '.codex']) fs.mkdirSync(path.join(root, folder), { recursive: true });
  const project = path.join(root, 'work', 'shop');
  const pluginRepo = path.join(root, 'acme-plugin');
  gitRepo(capabilities, {
    skills: {
      pdf: {
        'SKILL.md': doc({ name: 'pdf', description: 'Read, fill and merge PDF forms.' }, 'gates:\n  ocr: true\n  redact: false\n'),
        'forms.md': 'Form fields.\n',
      },
      review: { 'SKILL.md': doc({ name: 'review', description: 'Review a pull request: correctness first, then clarity.' }) },
      'release-notes.md': doc({ name: 'release-notes', description: 'Draft release notes from merged pull requests.' }),
    },
    affordances: { 'shell.md': doc({ name: 'shell', description: 'Run commands in a POSIX shell in the project folder.' }) },
    notifications: { 'loadout-runs.json': fs.readFileSync(RUN_CATALOGUE, 'utf8') },
    servers: {
      'github.json': JSON.stringify({ name: 'github', command: 'npx', args: ['-y', 'github-mcp'], env: {} }),
      'docs.json': JSON.stringify({ name: 'docs', url: 'https://docs.example.invalid/mcp' }),
    },
    tasks: {
      'gated-echo': {
        'TASK.md': doc(
          { name: 'gated-echo', description: 'Prints a line, waits to be released, prints another.' },
          'implementation: run.mjs\n',
        ),
        'run.mjs': GATED_TASK,
      },
      'word-count': {
        'TASK.md': doc({ name: 'word-count', description: 'Counts the words of the text it is given.' }, 'implementation: count.mjs\n'),
        'count.mjs':
          "import fs from 'node:fs';\nconst { text = '' } = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');\nconsole.log(JSON.stringify({ words: text.split(/\\s+/).filter(Boolean).length }));\n",
      },
    },
  });
  if ((options.bulkSkills ?? 0) > 0) {
    // Thousands of loose objects would start git's automatic gc in the background, still writing
    // in .git when the test removes its folder.
    git(capabilities, 'config', 'gc.auto', '0');
    gitCommit(capabilities, { skills: bulkSkills(options.bulkSkills ?? 0) }, 'many skills');
  }
  fs.mkdirSync(path.join(project, '.agents', 'skills', 'pdf'), { recursive: true });
  fs.writeFileSync(
    path.join(project, '.agents', 'skills', 'pdf', 'SKILL.md'),
    doc({ name: 'PDF', description: 'The shop’s own PDF invoices skill.' }),
  );
  fs.writeFileSync(path.join(project, '.agents', 'skills', 'pdf', 'invoice-template.md'), 'Invoice template.\n');
  gitRepo(pluginRepo, {
    'plugin.json': JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: PLUGIN_NAME,
      description: 'Linting tools',
    }),
    skills: { lint: { 'SKILL.md': doc({ name: 'lint', description: 'Lint the code the way the team agreed.' }) } },
    tasks: {
      'lint-report': {
        'TASK.md': doc({ name: 'lint-report', description: 'Reports lint findings for the project.' }, 'implementation: report.sh\n'),
        'report.sh': 'echo "no findings"\n',
      },
    },
  });
  const pluginUrl = `file://${pluginRepo}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    LANG: 'C.UTF-8',
    LOADOUT_HOME: home,
    LOADOUT_CAPABILITIES_DIR: capabilities,
    LOADOUT_DATA_DIR: path.join(home, '.loadout'),
    LOADOUT_TOKEN: TOKEN,
  };
  const loadout = (...args: string[]): string =>
    execFileSync(process.execPath, [CLI_ENTRY, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  // Approved unless a test asks to see its task held.
  if (options.installPlugin === true)
    loadout('plugins', 'install', pluginUrl, ...(options.approvePlugin === false ? [] : ['--yes']), '--json');

  const server = await spawnServer(env);
  let browser: BrowserContext;
  try {
    browser = await launchChromium(testdir(), options.viewport);
  } catch (error) {
    await stopProcess(server.child);
    throw error;
  }
  const page = browser.pages()[0] ?? (await browser.newPage());
  // Shorter than the test's own timeout, so a wait that never ends fails with what it waited for.
  page.setDefaultTimeout(15_000);
  return {
    home,
    capabilities,
    project,
    pluginRepo,
    pluginUrl,
    url: server.url,
    browser,
    page,
    loadout,
    async open({ project: inView = null, view = 'capabilities' } = {}) {
      const address = new URL(server.url);
      if (inView !== null) address.searchParams.set('project', inView);
      address.hash = `token=${TOKEN}`;
      await page.goto(address.toString());
      await page.evaluate((name) => {
        location.hash = name;
      }, view);
      await page.locator('main .view').first().waitFor();
      return page;
    },
    async close() {
      await browser.close().catch(() => undefined);
      await stopProcess(server.child);
    },
  };
}

/**
 * One screen per test: `start` makes it, and after each test it is closed and its folders removed.
 * `stop` closes it early, for a test that starts more than one.
 */
export function screenPerTest(): {
  start(options?: Parameters<typeof startLoadoutScreen>[0]): Promise<LoadoutScreen>;
  stop(): Promise<void>;
} {
  let screen: LoadoutScreen | null = null;
  const stop = async (): Promise<void> => {
    await screen?.close();
    screen = null;
  };
  // Removing a workspace of 10,000 skills on a busy machine takes longer than vitest's minute.
  afterEach(async () => {
    await stop();
    removeTestdirs();
  }, 300_000);
  return {
    async start(options) {
      screen = await startLoadoutScreen(options);
      return screen;
    },
    stop,
  };
}

/** `count` skill folders named `bulk-00001` …, each with a description that says which it is. */
function bulkSkills(count: number): Record<string, { 'SKILL.md': string }> {
  const skills: Record<string, { 'SKILL.md': string }> = {};
  for (let index = 1; index <= count; index += 1) {
    const name = `bulk-${String(index).padStart(5, '0')}`;
    skills[name] = { 'SKILL.md': doc({ name, description: `Bulk skill number ${index} of ${count}, for the large-screen tests.` }) };
  }
  return skills;
}

/** A Markdown document with `name`, `description` and any extra raw frontmatter lines. */
function doc(fields: { name: string; description: string }, extra = ''): string {
  return `---\nname: ${JSON.stringify(fields.name)}\ndescription: ${JSON.stringify(fields.description)}\n${extra}---\nUse this when asked.\n`;
}

/** `loadout serve --port 0 --json`: resolves once it printed where it listens. */
async function spawnServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI_ENTRY, 'serve', '--port', '0', '--workers', '2', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`loadout serve did not start in 30 s: ${stderr}`)), 30_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        try {
          const described = JSON.parse(stdout) as { url: string };
          clearTimeout(timer);
          resolve(described.url);
        } catch {
          // Not the whole document yet.
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`loadout serve exited with ${code}: ${stderr}`));
      });
    });
    return { child, url };
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

/** SIGTERM (the server settles its jobs and releases its lock), SIGKILL after 10 s. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

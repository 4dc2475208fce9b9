import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import xterm from '@xterm/headless';

/**
 * Asks Cline's CLI which MCP servers it loads. `cline` 3.0.65 has no listing command: `cline mcp`
 * only adds and removes, and `cline config` opens its settings screen, which refuses to start
 * without a terminal. So it is given one: util-linux `script` runs it in a pseudo-terminal, a
 * headless xterm draws what it prints (Cline redraws only the cells that change, so the text in
 * its output stream alone is not the screen), the right arrow opens the MCP tab, the rows under
 * "MCP (N)" are read off the drawn screen, and Ctrl+C ends it. No model is called.
 */

/** One row of the MCP tab: `● name` (on) or `○ name` (off), and what Cline says of it. */
export interface ClineListedServer {
  readonly name: string;
  readonly enabled: boolean;
  readonly description: string;
}

export interface ClineMcpTab {
  readonly servers: readonly ClineListedServer[];
  /** The screen as it was read, for the assertion messages. */
  readonly screen: string;
}

export interface ClineRun {
  /** `node_modules/.bin/cline` of the installed tool. */
  readonly cline: string;
  readonly home: string;
  readonly cwd: string;
  /** PATH for the client (its wrapper is a Node script). */
  readonly path: string;
}

const COLUMNS = 160;
const ROWS = 48;
/** Generous: on a loaded CI machine with other clients starting beside it, Cline's first screen takes a while. */
const SCREEN_MS = 180_000;
/** How long a key is given to change the screen before it counts as not taken. */
const KEY_MS = 15_000;
const RIGHT_ARROW = '\x1b[C';
const CTRL_C = '\x03';

const SETTINGS_TABS = /General\s+MCP\s+Skills/;
const MCP_HEADING = /^\s*MCP \((\d+)\)\s*$/m;
const SERVER_ROW = /^\s*(?:▸\s+)?([●○])\s+(\S+)\s{2,}(\S.*?)\s*$/;

/** A port nothing listens on now, for Cline's background hub (its default port is shared by every HOME). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

/**
 * Cline starts a hub daemon in the background, detached, on the port it is given; it outlives the
 * settings screen. It is found by that port and the scratch home (both this run's own), and stopped.
 */
async function stopHub(home: string, port: number): Promise<void> {
  const hubOf = (): number | null => {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const args = fs.readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8').split('\0');
        if (!args.includes('--cline-hub-daemon') || args[args.indexOf('--port') + 1] !== String(port)) continue;
        const environment = fs.readFileSync(path.join('/proc', entry, 'environ'), 'utf8').split('\0');
        if (environment.includes(`HOME=${home}`)) return Number(entry);
      } catch {
        // The process ended while it was being read.
      }
    }
    return null;
  };
  const alive = (pid: number): boolean => fs.existsSync(path.join('/proc', String(pid)));
  // It is started before the settings screen shows; a moment's grace for a slow machine.
  let pid = hubOf();
  for (let waited = 0; pid === null && waited < 5_000; waited += 200) {
    await new Promise((wake) => setTimeout(wake, 200));
    pid = hubOf();
  }
  if (pid === null) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; alive(pid) && waited < 10_000; waited += 100) await new Promise((wake) => setTimeout(wake, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

/** The rows under `MCP (N)` up to `Manage MCP Servers...`; null while the tab is not (fully) drawn. */
function mcpRows(screen: string): ClineListedServer[] | null {
  const heading = MCP_HEADING.exec(screen);
  if (heading === null) return null;
  const lines = screen.slice(heading.index + heading[0].length).split('\n');
  const end = lines.findIndex((line) => line.includes('Manage MCP Servers'));
  if (end === -1) return null;
  const servers: ClineListedServer[] = [];
  for (const line of lines.slice(0, end)) {
    const row = SERVER_ROW.exec(line);
    if (row !== null) servers.push({ enabled: row[1] === '●', name: row[2] as string, description: row[3] as string });
  }
  return servers.length === Number(heading[1]) ? servers : null;
}

/** Opens `cline config` in a pseudo-terminal with a scratch home, reads its MCP tab, and closes it. */
export async function clineMcpTab(run: ClineRun): Promise<ClineMcpTab> {
  const port = await freePort();
  const terminal = new xterm.Terminal({ cols: COLUMNS, rows: ROWS, allowProposedApi: true });
  const quoted = `'${run.cline.replace(/'/g, `'\\''`)}'`;
  // `script -e` returns the client's own exit code; the pseudo-terminal is sized for long rows.
  const child = spawn('script', ['-qfec', `stty cols ${COLUMNS} rows ${ROWS} && exec ${quoted} config`, '/dev/null'], {
    cwd: run.cwd,
    env: { PATH: run.path, HOME: run.home, LANG: 'C.UTF-8', TERM: 'xterm-256color', CLINE_HUB_PORT: String(port) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  // `script` missing (util-linux) or not startable: said at once instead of after the screen's wait.
  let failed = false;
  child.once('error', (error) => {
    failed = true;
    errors += `${error.message}\n`;
  });
  child.stdout.on('data', (chunk: Buffer) => terminal.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const screen = async (): Promise<string> => {
    // Every byte received so far is drawn before the screen is read.
    await new Promise<void>((drawn) => terminal.write('', drawn));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < ROWS; row++) lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    return lines.join('\n');
  };
  const until = async <T>(read: (text: string) => T | null, ms: number): Promise<T | null> => {
    const started = Date.now();
    while (!failed && child.exitCode === null && Date.now() - started < ms) {
      const found = read(await screen());
      if (found !== null) return found;
      await new Promise((wake) => setTimeout(wake, 200));
    }
    return read(await screen());
  };
  try {
    const settings = await until((text) => (SETTINGS_TABS.test(text) && text.includes('switch tabs') ? true : null), SCREEN_MS);
    if (settings === null) throw new Error(`cline config showed no settings screen:\n${await screen()}\n${errors}`);
    // A key sent while the screen is still being set up can be lost; it is sent again only while the
    // General tab is still showing, so it never moves past the MCP tab.
    let servers: ClineListedServer[] | null = null;
    for (let attempt = 0; attempt < 3 && servers === null; attempt++) {
      if (attempt === 0 || !MCP_HEADING.test(await screen())) child.stdin.write(RIGHT_ARROW);
      servers = await until(mcpRows, KEY_MS);
    }
    const shown = await screen();
    if (servers === null) throw new Error(`cline config's MCP tab could not be read:\n${shown}\n${errors}`);
    return { servers, screen: shown };
  } finally {
    if (!failed && child.exitCode === null) {
      child.stdin.write(CTRL_C);
      const ended = await Promise.race([exited, new Promise((wake) => setTimeout(() => wake('late'), 30_000))]);
      if (ended === 'late') child.kill('SIGKILL');
    }
    terminal.dispose();
    await stopHub(run.home, port);
  }
}

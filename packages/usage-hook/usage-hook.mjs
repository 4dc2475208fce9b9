// Loadout's usage hook: the program an agent runtime runs on its tool-use and prompt events, with
// the owner's consent (`loadout usage hook on`). It reads the event the runtime gives on stdin,
// and appends what was used (a skill, command, agent or MCP tool) to this runtime's spool file,
// which Loadout's usage ledger picks up later. It imports nothing but Node's own modules and
// depends on no Loadout package, so it starts as fast as node itself; an agent must never wait
// on Loadout.
//
// It never blocks or changes the agent: it prints nothing (Claude Code adds a UserPromptSubmit
// hook's stdout to the prompt; Codex parses it), always exits 0 (2 would block the tool call), and
// gives up after a bounded read or wait. It runs nothing it is given and reads nothing but its
// stdin and its own consent file.
//
// Usage: node usage-hook.mjs <usage folder> <runtime>
//   <usage folder>/hook.json        the owner's consent: { "version": 1, "runtimes": [...] }
//   <usage folder>/spool/<runtime>.jsonl   one JSON line appended per event (format version 1)
import fs from 'node:fs';
import path from 'node:path';

/** The most of stdin read: a tool's response can be large, and only the fields before it are needed. */
const MAX_INPUT_BYTES = 1024 * 1024;
/** How long the runtime may keep stdin open before the hook gives up, recording nothing. */
const MAX_WAIT_MS = 2000;
/** One line is one write under this size, so concurrent appends never interleave. */
const MAX_LINE_BYTES = 4096;
const MAX_NAME = 200;
const RUNTIME_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** A slash command's name as typed at the start of a prompt: `/review`, `/kit:ship`. Not a path (`/usr/bin`). */
const TYPED_COMMAND = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})(?=\s|$)/;
const MCP_TOOL = /^mcp__(.+?)__(.+)$/;

const text = (value) => (typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME ? value : null);

/** What one tool call used, or null: a skill, a subagent, a slash command run as a tool, an MCP server's tool. */
function usedByTool(toolName, input) {
  const given = input !== null && typeof input === 'object' ? input : {};
  if (toolName === 'Skill') {
    const name = text(given.skill)?.replace(/^\//, '') ?? null;
    return name === null ? null : { kind: 'skill', name };
  }
  if (toolName === 'Task' || toolName === 'Agent') {
    const name = text(given.subagent_type);
    return name === null ? null : { kind: 'agent', name };
  }
  if (toolName === 'SlashCommand') {
    const match = TYPED_COMMAND.exec(typeof given.command === 'string' ? given.command.trimStart() : '');
    return match === null ? null : { kind: 'command', name: match[1] };
  }
  const mcp = MCP_TOOL.exec(toolName);
  if (mcp !== null && mcp[1].length <= MAX_NAME && mcp[2].length <= MAX_NAME) return { kind: 'tool', name: mcp[2], server: mcp[1] };
  return null;
}

/**
 * The usage events one hook input stands for, as spool lines (objects): none for anything that
 * used no skill, command, agent or tool. Pure; exported for the tests.
 */
export function usageEvents(payload, runtime, at, projectDir) {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return [];
  const event = payload.hook_event_name;
  let used = null;
  let outcome = 'invoked';
  if (event === 'PreToolUse' || event === 'PostToolUse' || event === 'PostToolUseFailure') {
    if (typeof payload.tool_name !== 'string') return [];
    used = usedByTool(payload.tool_name, payload.tool_input);
    if (event === 'PostToolUseFailure') outcome = 'failed';
  } else if (event === 'UserPromptSubmit' && typeof payload.prompt === 'string') {
    const match = TYPED_COMMAND.exec(payload.prompt.trimStart());
    if (match !== null) used = { kind: 'command', name: match[1] };
  }
  if (used === null) return [];
  const project = [projectDir, payload.cwd].find((dir) => typeof dir === 'string' && path.isAbsolute(dir) && dir.length <= 4096) ?? null;
  const session = text(payload.session_id);
  return [
    {
      v: 1,
      at,
      runtime,
      project,
      kind: used.kind,
      name: used.name,
      ...(used.server === undefined ? {} : { server: used.server }),
      event: outcome,
      ...(session === null ? {} : { session }),
    },
  ];
}

/**
 * The hook input as JSON. Cut at the read limit, it is parsed up to its tool response (Claude
 * Code and Codex send the tool's name and input first), which is all the hook needs.
 */
function parseInput(raw, complete) {
  try {
    return JSON.parse(raw);
  } catch {
    if (complete) return null;
    const cut = raw.indexOf(',"tool_response":');
    if (cut === -1) return null;
    try {
      return JSON.parse(`${raw.slice(0, cut)}}`);
    } catch {
      return null;
    }
  }
}

/** Whether the owner's consent file names this runtime: a hook left behind after `off` records nothing. */
function consented(usageDir, runtime) {
  try {
    const consent = JSON.parse(fs.readFileSync(path.join(usageDir, 'hook.json'), 'utf8'));
    return consent?.version === 1 && Array.isArray(consent.runtimes) && consent.runtimes.includes(runtime);
  } catch {
    return false;
  }
}

function append(file, line) {
  const bytes = Buffer.from(`${line}\n`, 'utf8');
  if (bytes.length >= MAX_LINE_BYTES) return;
  let fd;
  try {
    fd = fs.openSync(file, 'a', 0o600);
  } catch (error) {
    if (error?.code !== 'ENOENT') return;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fd = fs.openSync(file, 'a', 0o600);
  }
  try {
    fs.writeSync(fd, bytes);
  } finally {
    fs.closeSync(fd);
  }
}

function record(usageDir, runtime, raw, complete) {
  if (!consented(usageDir, runtime)) return;
  const events = usageEvents(parseInput(raw, complete), runtime, new Date().toISOString(), process.env.CLAUDE_PROJECT_DIR);
  for (const event of events) append(path.join(usageDir, 'spool', `${runtime}.jsonl`), JSON.stringify(event));
}

function main() {
  const [usageDir, runtime] = process.argv.slice(2);
  if (typeof usageDir !== 'string' || !path.isAbsolute(usageDir) || typeof runtime !== 'string' || !RUNTIME_NAME.test(runtime)) return;
  const chunks = [];
  let size = 0;
  let done = false;
  const finish = (complete) => {
    if (done) return;
    done = true;
    try {
      record(usageDir, runtime, Buffer.concat(chunks).toString('utf8'), complete);
    } catch {
      // Recording is best effort: a full disk or a read-only data folder never reaches the agent.
    }
    process.exit(0);
  };
  const timer = setTimeout(() => finish(false), MAX_WAIT_MS);
  timer.unref();
  process.stdin.on('data', (chunk) => {
    const room = MAX_INPUT_BYTES - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= MAX_INPUT_BYTES) finish(false);
  });
  process.stdin.on('end', () => finish(true));
  process.stdin.on('error', () => finish(false));
}

if (process.argv[1] === import.meta.filename) {
  try {
    main();
  } catch {
    process.exitCode = 0;
  }
}

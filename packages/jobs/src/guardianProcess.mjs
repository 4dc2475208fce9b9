// The guardian: the small process a Loadout process that runs tasks keeps beside it (see
// ProcessGuardian.ts, which starts it with `node guardianProcess.mjs`). Plain JavaScript so that
// Node runs it as it is, from the sources as from the build; checked by tsc through its JSDoc types
// (checkJs) and by lint like any module.
//
// It reads lines on its stdin: `+<pgid>` and `-<pgid>` list and unlist a group, `d<pgid> <ms>` sets
// the moment (monotonic clock, see RunDeadline.ts) at which a listed group is killed unless a later
// one comes, `s<json>` starts a task's process for its owner (a ProcessRequest with its `id` and,
// optionally, its first such moment as `deadline`), `x<id>` lets go of a started process's output.
// When its input ends (the process that started it is gone, however it died) it kills every group
// still listed. It ignores the signals a terminal sends its owner's group. The deadlines are how a
// job's lease stops its task even while the owner is frozen (SIGSTOP, swapped out): the owner
// cannot kill then, and another server takes the job after the lease.
//
// A process it starts is listed from its start to its exit, and what happens to it is told on
// stdout, one JSON line each: `{id, pid}` or `{id, error}`, `{id, stream, data}` (1 stdout, 2
// stderr, base64) and `{id, end}`, `{id, exit: [code, signal]}`, `{id, close}`; what happens in one
// turn of its event loop (an exit and the ends of both streams) is told in one write, so its owner
// wakes once for it. While its owner has not taken what it was told (the pipe is full), it reads no
// task's output, so a task writing faster than its owner reads waits on its own pipe, as it would if
// its owner had started it, instead of piling up in the guardian. It says `{"ready":true}` once it
// reads.
import { spawn } from 'node:child_process';

/**
 * @typedef {object} StartRequest
 * @property {number} id
 * @property {string} file
 * @property {string[]} args
 * @property {string} cwd
 * @property {Record<string, string>} env
 * @property {string} input
 * @property {number} [deadline]
 */

/** @typedef {import('node:child_process').ChildProcessWithoutNullStreams} Child */

/** @type {Set<number>} the groups to kill when the owner goes */
const groups = new Set();
/** @type {Map<number, Child>} the processes started here whose output is still relayed, by id */
const started = new Map();
/** @type {Map<number, NodeJS.Timeout>} each listed group's kill timer, by group */
const deadlines = new Map();
let pending = '';
let told = '';
let blocked = false;

const monotonicNow = () => Number(process.hrtime.bigint() / 1000000n);

/** @param {number} pgid */
function kill(pgid) {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** @param {number} pgid */
function forgetDeadline(pgid) {
  clearTimeout(deadlines.get(pgid));
  deadlines.delete(pgid);
}

/**
 * Kills the listed group `pgid` at `at` (monotonic ms) unless a later moment comes first.
 * @param {number} pgid
 * @param {number | undefined} at
 */
function killAt(pgid, at) {
  if (!groups.has(pgid) || at === undefined || !Number.isFinite(at)) return;
  forgetDeadline(pgid);
  const timer = setTimeout(
    () => {
      deadlines.delete(pgid);
      if (groups.has(pgid)) kill(pgid);
    },
    Math.max(0, at - monotonicNow()),
  );
  deadlines.set(pgid, timer);
}

/**
 * @param {Child} child
 * @param {boolean} on
 */
function flow(child, on) {
  for (const stream of [child.stdout, child.stderr]) {
    if (on) stream.resume();
    else stream.pause();
  }
}

function flush() {
  const text = told;
  told = '';
  if (process.stdout.write(text) || blocked) return;
  blocked = true;
  for (const child of started.values()) flow(child, false);
  process.stdout.once('drain', () => {
    blocked = false;
    for (const child of started.values()) flow(child, true);
  });
}

/** @param {Record<string, unknown>} message */
function tell(message) {
  if (told === '') setImmediate(flush);
  told += `${JSON.stringify(message)}\n`;
}

/** @param {NodeJS.ErrnoException} error */
const reason = (error) => error.code || error.message;

/** @param {StartRequest} request */
function start(request) {
  const id = request.id;
  /** @type {Child} */
  let child;
  try {
    child = spawn(request.file, request.args, { cwd: request.cwd, env: request.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  } catch (error) {
    tell({ id, error: reason(/** @type {NodeJS.ErrnoException} */ (error)) });
    return;
  }
  started.set(id, child);
  child.once('error', (error) => tell({ id, error: reason(error) }));
  child.once('spawn', () => {
    const pid = /** @type {number} */ (child.pid);
    groups.add(pid);
    killAt(pid, request.deadline);
    tell({ id, pid });
  });
  for (const [stream, index] of /** @type {const} */ ([
    [child.stdout, 1],
    [child.stderr, 2],
  ])) {
    stream.on('data', (/** @type {Buffer} */ data) => tell({ id, stream: index, data: data.toString('base64') }));
    stream.on('end', () => tell({ id, end: index }));
  }
  if (blocked) flow(child, false);
  child.stdin.on('error', () => undefined); // a task that never reads its input is fine
  child.stdin.end(request.input);
  child.once('exit', (code, signal) => {
    const pid = /** @type {number} */ (child.pid);
    groups.delete(pid);
    forgetDeadline(pid);
    tell({ id, exit: [code, signal] });
  });
  child.once('close', () => {
    started.delete(id);
    tell({ id, close: true });
  });
}

/** @param {string} line */
function obey(line) {
  if (line[0] === 's') {
    start(/** @type {StartRequest} */ (JSON.parse(line.slice(1))));
    return;
  }
  if (line[0] === 'x') {
    const id = Number(line.slice(1));
    const child = started.get(id);
    started.delete(id);
    child?.stdout.destroy();
    child?.stderr.destroy();
    return;
  }
  const [pgid, at] = line.slice(1).split(' ').map(Number);
  if (pgid === undefined || !Number.isInteger(pgid) || pgid <= 1) return;
  if (line[0] === '+') groups.add(pgid);
  else if (line[0] === 'd') killAt(pgid, at);
  else {
    groups.delete(pgid);
    forgetDeadline(pgid);
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
process.stdout.on('error', () => undefined);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (/** @type {string} */ text) => {
  pending += text;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    obey(line);
  }
});
process.stdin.on('end', () => {
  for (const pgid of groups) kill(pgid);
  process.exit(0);
});
tell({ ready: true });

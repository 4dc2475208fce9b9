// Session open over 100 plugins × 100 skills: raw-read floor, cold open, warm open, open after one
// change, and memory per document. Prints one JSON document.
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { createLoadout } from '../../packages/app/dist/index.js';
import { closeKernel, resolvePlaces, SessionLoader } from '../../packages/kernel/dist/index.js';
import { makeWorkspace, registerPlugins } from './makeWorkspace.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
// Garbage left by the previous run is collected before each timed run, outside the timing, so a
// run pays for what it allocates itself and not for its predecessor's.
const collect = () => globalThis.gc?.();
const time = (fn) => {
  collect();
  const started = process.hrtime.bigint();
  const result = fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
};
const timeAsync = async (fn) => {
  collect();
  const started = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
};
const settle = (ms) => new Promise((done) => setTimeout(done, ms));

const { home, files } = makeWorkspace({ plugins: 100, skillsPerPlugin: 100 });
const places = resolvePlaces({}, home);
try {
  const setupApp = createLoadout({ places });
  await registerPlugins(setupApp, home);

  // The floor: list every skills folder and read every SKILL.md, no parsing, the same sync I/O.
  const floor = () => {
    let bytes = 0;
    for (const plugin of fs.readdirSync(path.join(home, 'plugins'))) {
      const skills = path.join(home, 'plugins', plugin, 'skills');
      for (const name of fs.readdirSync(skills)) bytes += fs.readFileSync(path.join(skills, name, 'SKILL.md')).length;
    }
    return bytes;
  };
  floor(); // warm the page cache
  const floorMs = median(Array.from({ length: RUNS }, () => time(floor).ms));

  // Cold: nothing read is kept between opens (no watch cache), as in a one-shot command. The
  // container and its database connection are made once, before timing: they are not documents.
  const coldRuns = [];
  let skillCount = 0;
  const coldLoader = setupApp.resolve(SessionLoader);
  (await coldLoader.open()).dispose();
  for (let i = 0; i < RUNS; i += 1) {
    const { ms, result } = await timeAsync(() => coldLoader.open());
    skillCount = result.recordsOf('skill').length;
    result.dispose();
    coldRuns.push(ms);
  }
  const coldMs = median(coldRuns);

  // Warm: one long-running container with the watch cache, nothing changed between opens.
  const app = createLoadout({ places, watch: true });
  const loader = app.resolve(SessionLoader);
  const primed = await timeAsync(() => loader.open());
  primed.result.dispose();
  const warmRuns = [];
  for (let i = 0; i < RUNS * 3; i += 1) {
    const { ms, result } = await timeAsync(() => loader.open());
    result.dispose();
    warmRuns.push(ms);
  }
  const warmMs = median(warmRuns);

  // One change: edit one SKILL.md, let the watcher hear it, then open.
  const changeRuns = [];
  let sawChange = true;
  for (let i = 0; i < RUNS * 3; i += 1) {
    const file = files[(i * 997) % files.length];
    const text = fs.readFileSync(file, 'utf8').replace(/description: .*/, `description: changed ${i}`);
    fs.writeFileSync(file, text);
    await settle(30);
    const { ms, result } = await timeAsync(() => loader.open());
    sawChange &&= result.recordsOf('skill').some((record) => record.description === `changed ${i}`);
    result.dispose();
    changeRuns.push(ms);
  }
  const changeMs = median(changeRuns);

  // Memory per document: heap held by one session's records (fresh container, nothing cached).
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const held = await createLoadout({ places }).resolve(SessionLoader).open();
  globalThis.gc?.();
  const after = process.memoryUsage().heapUsed;
  const bytesPerDocument = Math.round((after - before) / held.recordsOf('skill').length);
  closeKernel(app);

  const result = {
    benchmark: 'session-open',
    documents: files.length,
    skillsInSession: skillCount,
    runs: RUNS,
    floorMs: round(floorMs),
    coldMs: round(coldMs),
    warmMs: round(warmMs),
    primeWithWatchersMs: round(primed.ms),
    oneChangeMs: round(changeMs),
    changeSeen: sawChange,
    bytesPerDocument,
    gcExposed: typeof globalThis.gc === 'function',
    ratios: {
      coldOverFloor: round(coldMs / floorMs),
      warmOverCold: round(warmMs / coldMs),
      oneChangeOverWarm: round(changeMs / warmMs),
    },
    targets: { coldOverFloor: 1.5, warmOverCold: 0.05, oneChangeOverWarm: 2 },
  };
  result.met = {
    coldOverFloor: result.ratios.coldOverFloor <= 1.5,
    warmOverCold: result.ratios.warmOverCold <= 0.05,
    oneChangeOverWarm: result.ratios.oneChangeOverWarm <= 2,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  held.dispose();
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

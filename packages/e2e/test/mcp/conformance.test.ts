/**
 * The official MCP conformance suite against Loadout, over both faces: `loadout serve`'s `/mcp`
 * (through a local proxy that adds the token) and `loadout mcp` over stdio (through a bridge that
 * speaks HTTP to the suite). Loadout serves a fixture capability set made of real tasks and
 * skills in a temp folder, named as the scenarios call them.
 *
 * Runs: protocol 2025-11-25 (suite 0.1.16), protocol 2026-07-28 (suite 0.2.0-alpha.12, the
 * revision's frozen requirement set plus the HTTP header scenarios), the Skills extension
 * (`sep-2640-*`) and the Tasks extension (`tasks-*`). The test fails on a scenario that fails
 * without being listed in `conformance-expected-failures.json`, and on a listed one that passes:
 * the list says exactly what Loadout does not do, and why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { runNotificationCatalogue, taskTree } from '@loadout/jobs/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTool, type ToolKey } from '../realTools.js';
import { TestServer, TOKEN } from '../server/support.js';
import { type LocalServer, readScenarioResults, type ScenarioResult, startStdioBridge, startTokenProxy } from './conformanceHarness.js';

type Transport = 'http' | 'stdio';
type RunName = '2025-11-25' | '2026-07-28' | 'extensions on 2025-11-25';

/** One run of the suite: which package, with which arguments (one invocation per entry). */
interface SuiteRun {
  readonly name: RunName;
  readonly suite: ToolKey;
  readonly invocations: readonly (readonly string[])[];
}

/** The Skills extension's scenarios, which the 2026-07-28 requirement set does not run by itself. */
const SKILLS_SCENARIOS = ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'];

/** The Tasks extension's scenarios (the 2026-07-28 requirement set runs them too). */
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-required-task-error',
  'tasks-dispatch-and-envelope',
  'tasks-mrtr-input',
  'tasks-mrtr-composition',
  'tasks-request-headers',
  'tasks-status-notifications',
];

/**
 * 2025-11-25: suite 0.1.16's active scenarios. 2026-07-28: the revision's frozen requirement set
 * (it runs the Tasks extension's scenarios and the HTTP header ones too, unscored), and the Skills
 * extension's.
 */
const RUNS: readonly SuiteRun[] = [
  { name: '2025-11-25', suite: 'mcpConformance2025', invocations: [[]] },
  {
    name: '2026-07-28',
    suite: 'mcpConformance2026',
    invocations: [['--requirements', '2026-07-28'], ...SKILLS_SCENARIOS.map((scenario) => ['--scenario', scenario])],
  },
  // The extensions over the protocol revision Loadout serves today: their scenarios, forced onto
  // 2025-11-25, check the extensions' own methods and shapes without the 2026-07-28 wire.
  {
    name: 'extensions on 2025-11-25',
    suite: 'mcpConformance2026',
    invocations: [...SKILLS_SCENARIOS, ...TASKS_SCENARIOS].map((scenario) => [
      '--spec-version',
      '2025-11-25',
      '--force',
      '--scenario',
      scenario,
    ]),
  },
];

/** How the figures are reported: the extensions apart from the protocol revision they run on. */
function groupOf(run: RunName, scenario: string): string {
  const on = run === 'extensions on 2025-11-25' ? ' on 2025-11-25' : ' on 2026-07-28';
  if (scenario.startsWith('sep-2640-')) return `Skills extension${on}`;
  if (scenario.startsWith('tasks-')) return `Tasks extension${on}`;
  return `protocol ${run}`;
}

/**
 * Scenarios about the HTTP transport itself (Host and Origin checks, headers, SSE streams): over
 * stdio the suite would be testing this file's bridge, so their stdio results are not counted.
 */
const HTTP_ONLY = new Set([
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
  'server-sse-polling',
  'server-session-lifecycle',
  'http-header-validation',
  'http-custom-header-server-validation',
  'tasks-request-headers',
]);

interface ExpectedFailure {
  readonly scenario: string;
  /** The runs it is expected to fail in; every run when absent. */
  readonly runs?: readonly RunName[];
  readonly transports?: readonly Transport[];
  readonly reason: string;
  /** Set while another branch builds what the scenario needs: the lead removes the entry at merge. */
  readonly pending?: string;
}

const EXPECTED: readonly ExpectedFailure[] = (
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'conformance-expected-failures.json'), 'utf8')) as {
    expectedFailures: ExpectedFailure[];
  }
).expectedFailures;

/** The input schema `json-schema-2020-12` expects a tool to keep as declared: `$defs`, `$anchor`, conditionals. */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** A task in Node that reads its JSON input as `input` and runs `body`. */
function nodeTask(description: string, input: unknown, body: string, mcpTask?: 'optional' | 'required'): TreeDescription {
  return taskTree(
    {
      name: description.replace(/\.$/, ''),
      description,
      implementation: 'run.mjs',
      input,
      ...(mcpTask === undefined ? {} : { 'mcp-task': mcpTask }),
    },
    { 'run.mjs': `import fs from 'node:fs';\nconst input = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');\n${body}\n` },
  );
}

const EMPTY_INPUT = { type: 'object', properties: {} };
/** A real 1×1 PNG, a real WAV of four silent samples and a small Markdown file, as base64. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SILENT_WAV = 'UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA';
const NOTES_MD = Buffer.from('# Notes\nWritten by the task.\n').toString('base64');

/** A task body writing `files` (name → base64) into the run's own output folder. */
function writeOutputs(files: Record<string, string>): string {
  return Object.entries(files)
    .map(
      ([name, data]) => `fs.writeFileSync(\`\${process.env.LOADOUT_OUTPUT_DIR}/${name}\`, Buffer.from(${JSON.stringify(data)}, 'base64'));`,
    )
    .join('\n');
}

/** The capability set the scenarios call: tasks named as their tools, skills for prompts and resources. */
function fixtureTree(): TreeDescription {
  const task = (description: string, script: string): TreeDescription =>
    taskTree({ name: description.replace(/\.$/, ''), description, implementation: 'run.sh' }, { 'run.sh': `cat >/dev/null\n${script}\n` });
  return {
    capabilities: {
      notifications: { 'loadout-runs.json': runNotificationCatalogue },
      tasks: {
        test_simple_text: task('Returns simple text.', 'echo "This is a simple text response for testing."'),
        test_error_handling: task('Always fails.', 'echo "This tool intentionally returns an error for testing" >&2\nexit 1'),
        // Three lines of output a little apart: three progress notifications.
        test_tool_with_progress: task('Reports progress as it prints.', 'echo "0%"\nsleep 0.2\necho "50%"\nsleep 0.2\necho "100%"'),
        // Files a task leaves in its own output folder ($LOADOUT_OUTPUT_DIR) reach the client as
        // image, audio and resource content (docs/mcp.md).
        test_image_content: nodeTask('Returns an image.', EMPTY_INPUT, writeOutputs({ 'pixel.png': PIXEL_PNG })),
        test_audio_content: nodeTask('Returns audio.', EMPTY_INPUT, writeOutputs({ 'tone.wav': SILENT_WAV })),
        test_embedded_resource: nodeTask('Returns an embedded resource.', EMPTY_INPUT, writeOutputs({ 'notes.md': NOTES_MD })),
        test_multiple_content_types: nodeTask(
          'Returns several kinds of content.',
          EMPTY_INPUT,
          `process.stdout.write("text, an image and a resource");\n${writeOutputs({ 'pixel.png': PIXEL_PNG, 'notes.md': NOTES_MD })}`,
        ),
        test_tool_with_task: task('A longer task, run as an MCP task where the client asks.', 'sleep 1\necho "done after a while"'),
        // The Tasks extension's scenarios call these.
        // A plain tool listed first (tools are listed by name): the header-validation probe calls
        // the first tool without declaring the Tasks extension, which failing_job requires.
        echo: nodeTask(
          'Echoes its text.',
          { type: 'object', properties: { text: { type: 'string' } } },
          'process.stdout.write(input.text ?? "");',
        ),
        greet: nodeTask(
          'Greets by name.',
          { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          'process.stdout.write(`Hello, ${input.name}!`);',
        ),
        slow_compute: nodeTask(
          'Sleeps the seconds it is given, then answers.',
          { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
          'setTimeout(() => process.stdout.write(`computed ${input.label ?? ""}`), (input.seconds ?? 0) * 1000);',
          'optional',
        ),
        failing_job: taskTree(
          { name: 'Always fails', description: 'Always fails.', implementation: 'run.sh', 'mcp-task': 'required' },
          { 'run.sh': 'cat >/dev/null\necho "the job failed" >&2\nexit 1\n' },
        ),
        // Its output breaks its declared schema: the call ends in a protocol error.
        protocol_error_job: taskTree(
          {
            name: 'Breaks its output schema',
            description: 'Prints what its declared output refuses.',
            implementation: 'run.sh',
            'mcp-task': 'required',
            output: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
          },
          { 'run.sh': 'cat >/dev/null\necho \'{"count": "not a number"}\'\n' },
        ),
        json_schema_2020_12_tool: nodeTask('Takes a JSON Schema 2020-12 input.', JSON_SCHEMA_2020_12_INPUT, 'process.stdout.write("ok");'),
      },
      skills: {
        test_simple_prompt: {
          'SKILL.md': '---\nname: test_simple_prompt\ndescription: A simple prompt.\n---\nThis is a simple prompt for testing.\n',
        },
        // The Skills extension's scenarios look for this one by name.
        'pdf-processing': {
          'SKILL.md':
            '---\nname: pdf-processing\ndescription: Extracts text and tables from PDF files.\n---\n# PDF processing\nSee reference/tables.md.\n',
          reference: { 'tables.md': '# Tables\nRead them row by row.\n' },
        },
        'pdf-helper': {
          'SKILL.md': '---\nname: pdf-helper\ndescription: Reads and fills PDF forms.\n---\n# PDF helper\nSee reference/forms.md.\n',
          reference: { 'forms.md': '# Forms\nFill them field by field.\n' },
        },
      },
    },
    plugins: {},
  };
}

interface RunOutcome {
  readonly run: RunName;
  readonly transport: Transport;
  readonly results: readonly ScenarioResult[];
}

let server: TestServer | null = null;
const faces: LocalServer[] = [];
const outcomes: RunOutcome[] = [];

beforeAll(async () => {
  server = await TestServer.start({ tree: fixtureTree() });
}, 120_000);

afterAll(async () => {
  for (const face of faces.splice(0)) await face.close();
  await server?.close();
  removeTestdirs();
  // The figures the issue asks for: scenarios and checks passed, per protocol revision (and
  // extension) and transport.
  const groups = new Map<string, ScenarioResult[]>();
  for (const outcome of outcomes)
    for (const result of outcome.results) {
      const key = `${groupOf(outcome.run, result.scenario)} over ${outcome.transport}`;
      groups.set(key, [...(groups.get(key) ?? []), result]);
    }
  for (const [key, results] of groups) {
    const passed = results.filter((result) => result.failed === 0).length;
    const checks = results.reduce((sum, result) => sum + result.passed, 0);
    const all = results.reduce((sum, result) => sum + result.passed + result.failed, 0);
    process.stdout.write(`conformance, ${key}: ${passed}/${results.length} scenarios, ${checks}/${all} checks passed\n`);
  }
}, 60_000);

async function face(transport: Transport): Promise<LocalServer> {
  const running = server as TestServer;
  const started =
    transport === 'http'
      ? await startTokenProxy(`http://127.0.0.1:${running.server.port}`, TOKEN)
      : await startStdioBridge(
          [process.execPath, CLI_ENTRY, 'mcp'],
          { PATH: process.env.PATH, HOME: running.home, LANG: 'C.UTF-8', LOADOUT_HOME: running.home },
          running.home,
        );
  faces.push(started);
  return started;
}

async function runSuite(run: SuiteRun, url: string): Promise<ScenarioResult[]> {
  const suite = await ensureTool(run.suite);
  const results: ScenarioResult[] = [];
  for (const args of run.invocations) {
    const out = testdir({});
    // The suite exits non-zero when a scenario fails; what failed is read from its files.
    const printed = await promisify(execFile)(suite.node, [suite.bin('conformance'), 'server', '--url', url, '-o', out, ...args], {
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH, HOME: out },
    }).catch((error: { stdout?: string; stderr?: string }) => error);
    const said = `${printed.stderr ?? ''}${printed.stdout ?? ''}`.match(/Server test error: .*/)?.[0] ?? '';
    const found = readScenarioResults(out, said);
    const named = args[0] === '--scenario' ? (args[1] as string) : null;
    if (named !== null && found.length === 0)
      found.push({ scenario: named, passed: 0, failed: 1, failures: [`wrote no results: ${said}`] });
    results.push(...found);
  }
  return results;
}

function expectedFor(run: RunName, transport: Transport): Map<string, ExpectedFailure> {
  return new Map(
    EXPECTED.filter((entry) => (entry.runs ?? [run]).includes(run) && (entry.transports ?? [transport]).includes(transport)).map(
      (entry) => [entry.scenario, entry],
    ),
  );
}

describe.each(['http', 'stdio'] as const)('the MCP conformance suite over %s', (transport) => {
  it.each(RUNS.map((run) => [run.name, run] as const))(
    '%s: every scenario passes but those listed as expected failures, and none of those passes',
    async (_name, run) => {
      const url = (await face(transport)).url;
      const results = (await runSuite(run, url)).filter((result) => transport === 'http' || !HTTP_ONLY.has(result.scenario));
      outcomes.push({ run: run.name, transport, results });
      expect(results.length, 'the suite ran no scenario').toBeGreaterThan(0);
      const expected = expectedFor(run.name, transport);
      const unexpected = results
        .filter((result) => result.failed > 0 && !expected.has(result.scenario))
        .map((result) => `${result.scenario}: ${result.failures.join(' | ')}`);
      const nowPassing = results
        .filter((result) => result.failed === 0 && expected.has(result.scenario))
        .map((result) => `${result.scenario} passes now: remove it from conformance-expected-failures.json`);
      expect([...unexpected, ...nowPassing]).toEqual([]);
    },
    900_000,
  );
});

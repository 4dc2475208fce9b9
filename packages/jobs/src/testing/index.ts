import type { TreeDescription } from '@loadout/files/testing';

/** A task folder: `TASK.md` with the given frontmatter, and the given implementation files. */
export function taskTree(
  fields: {
    name: string;
    description?: string;
    implementation: string;
    timeout?: number;
    retries?: number;
    input?: unknown;
    output?: unknown;
    'mcp-task'?: string;
  },
  files: Record<string, string>,
): TreeDescription {
  const lines = [
    `name: ${JSON.stringify(fields.name)}`,
    `description: ${JSON.stringify(fields.description ?? `${fields.name} (test task)`)}`,
    `implementation: ${JSON.stringify(fields.implementation)}`,
    ...(fields.timeout === undefined ? [] : [`timeout: ${fields.timeout}`]),
    ...(fields.retries === undefined ? [] : [`retries: ${fields.retries}`]),
    // JSON is YAML: the schema is written as one flow mapping.
    ...(fields.input === undefined ? [] : [`input: ${JSON.stringify(fields.input)}`]),
    ...(fields.output === undefined ? [] : [`output: ${JSON.stringify(fields.output)}`]),
    ...(fields['mcp-task'] === undefined ? [] : [`mcp-task: ${fields['mcp-task']}`]),
  ];
  return { 'TASK.md': `---\n${lines.join('\n')}\n---\nA task made by a test.\n`, ...files };
}

/** The notification catalogue that declares the runner's events, as core ships it. */
export const runNotificationCatalogue = JSON.stringify({
  name: 'loadout-runs',
  description: 'Task runs started, succeeded and failed',
  notifications: [
    { id: 'task.run.started', title: 'Task run started', severity: 'info' },
    { id: 'task.run.succeeded', title: 'Task run succeeded', severity: 'success' },
    { id: 'task.run.failed', title: 'Task run failed', severity: 'error' },
  ],
});

/** A `.mjs` implementation that prints its input back as `{ input }`. */
export const echoTask = `
import fs from 'node:fs';
const raw = fs.readFileSync(0, 'utf8');
process.stdout.write(JSON.stringify({ input: JSON.parse(raw) }) + '\\n');
`;

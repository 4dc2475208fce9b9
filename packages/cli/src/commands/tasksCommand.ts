import { type Session, SessionLoader } from '@loadout/kernel';
import type { NewTask, TaskPatch, TaskRecord, TaskStore } from '@loadout/tasks';
import { describeRunnableExtensions } from '@loadout/tasks/interpreters';
import type { Command } from 'commander';
import path from 'node:path';
import { type CliContext, PROJECT_OPTION_HELP, UsageError } from '../CliContext.js';
import { table } from '../format.js';
import { trackedFs } from '@loadout/files';

interface TaskOptions {
  project?: string;
  json?: boolean;
  name?: string;
  description?: string;
  implementation?: string;
  body?: string;
  level?: string;
}

/** `loadout tasks list | show | create | update | delete` (and `run`, added by the runner). */
export function registerTasksCommand(program: Command, cli: CliContext): Command {
  const tasks = program.command('tasks').description("list, read and edit tasks; a plugin's tasks are read-only");
  // Reading finds the project from the working folder; a write goes where --project and --level say.
  const withSession = async <T>(options: TaskOptions, work: (store: TaskStore, session: Session) => T, reads = false): Promise<T> => {
    const project = reads ? cli.projectFor(options.project) : (options.project ?? null);
    const session = await cli
      .app()
      .resolve(SessionLoader)
      .open({ project, kinds: [cli.features.TASK_KIND] });
    try {
      return work(session.container.resolve(cli.features.TaskStore), session);
    } finally {
      session.dispose();
    }
  };

  tasks
    .command('list')
    .description('every task of the session, owner first')
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (options: TaskOptions) => {
      await cli.run(
        options.json === true,
        () => withSession(options, (store) => [...store.listTasks()], true),
        (records) =>
          records.length === 0
            ? 'no tasks'
            : table([
                ['DIR', 'LEVEL', 'SOURCE', 'HELD', 'DESCRIPTION'],
                ...records.map((t) => [t.dirName, t.level, t.plugin ?? 'owner', t.held?.decidedBy ?? '', t.description]),
              ]),
      );
    });

  tasks
    .command('show')
    .argument('<dir>', "the task's folder name")
    .description('one task as the session resolves it')
    .option('--project <dir>', PROJECT_OPTION_HELP)
    .option('--json', 'print one JSON document')
    .action(async (dirName: string, options: TaskOptions) => {
      await cli.run(options.json === true, () => withSession(options, (store) => store.getTaskByDirName(dirName), true), describeTask);
    });

  tasks
    .command('create')
    .argument('<dir>', 'the new folder name')
    .description("create a task in the owner's capabilities (or the project's with --level project)")
    .requiredOption('--name <text>', 'display name')
    .requiredOption('--description <text>', 'one line saying what it does')
    .requiredOption('--implementation <file>', `a script to copy in as the implementation (${describeRunnableExtensions()})`)
    .option('--body <text>', 'Markdown instructions after the frontmatter')
    .option('--level <level>', 'global or project', 'global')
    .option('--project <dir>', 'the folder the agent works in')
    .option('--json', 'print one JSON document')
    .action(async (dirName: string, options: TaskOptions) => {
      await cli.run(
        options.json === true,
        () => {
          const level = options.level === 'project' ? 'project' : options.level === 'global' ? 'global' : null;
          if (level === null) throw new UsageError('--level must be global or project');
          const task: NewTask = {
            name: options.name ?? '',
            description: options.description ?? '',
            implementation: readImplementation(options.implementation ?? ''),
            body: options.body ?? '',
          };
          return withSession(options, (store) => store.createTask(dirName, task, level));
        },
        (record) => `created task ${record.dirName} at ${record.folder}`,
      );
    });

  tasks
    .command('update')
    .argument('<dir>', "the task's folder name")
    .description("change an owner's task; a plugin's task is refused")
    .option('--name <text>', 'display name')
    .option('--description <text>', 'one line saying what it does')
    .option('--implementation <file>', 'a script to copy in as the new implementation')
    .option('--body <text>', 'Markdown instructions after the frontmatter')
    .option('--project <dir>', 'the folder the agent works in')
    .option('--json', 'print one JSON document')
    .action(async (dirName: string, options: TaskOptions) => {
      await cli.run(
        options.json === true,
        () => {
          const patch: TaskPatch = {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.description === undefined ? {} : { description: options.description }),
            ...(options.body === undefined ? {} : { body: options.body }),
            ...(options.implementation === undefined ? {} : { implementation: readImplementation(options.implementation) }),
          };
          if (Object.keys(patch).length === 0)
            throw new UsageError('nothing to change: give --name, --description, --body or --implementation');
          return withSession(options, (store) => store.updateTask(dirName, patch));
        },
        (record) => `updated task ${record.dirName}`,
      );
    });

  tasks
    .command('delete')
    .argument('<dir>', "the task's folder name")
    .description("delete an owner's task; a plugin's task is refused")
    .option('--project <dir>', 'the folder the agent works in')
    .option('--json', 'print one JSON document')
    .action(async (dirName: string, options: TaskOptions) => {
      await cli.run(
        options.json === true,
        () => withSession(options, (store) => ({ deleted: store.deleteTask(dirName) })),
        (result) => `deleted task ${result.deleted.dirName}`,
      );
    });
  return tasks;
}

function describeTask(task: TaskRecord): string {
  return [
    `${task.name} (${task.dirName})`,
    `  ${task.description}`,
    `  level: ${task.level}   source: ${task.plugin === null ? 'owner' : `plugin ${task.plugin} (read-only)`}`,
    `  implementation: ${task.implementationPath}`,
    ...(task.held === undefined ? [] : [`  held (${task.held.decidedBy}): ${task.held.reason}`]),
  ].join('\n');
}

function readImplementation(file: string): { filename: string; content: string } {
  if (file === '') throw new UsageError('--implementation needs a file');
  try {
    return { filename: path.basename(file), content: trackedFs.readFileSync(file, 'utf8') };
  } catch {
    throw new UsageError(`cannot read implementation file ${file}`);
  }
}

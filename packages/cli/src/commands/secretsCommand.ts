import type { Command } from 'commander';
import type { CliContext } from '../CliContext.js';

/**
 * `loadout secrets set NAME` (the value from stdin), `secrets list` (names only) and `secrets
 * remove NAME`: the values a server document names in its `secrets`, kept in the data folder
 * (mode 0600), never in the capabilities repository, never printed.
 */
export function registerSecretsCommand(program: Command, cli: CliContext): void {
  const store = () => new cli.features.SecretStore(cli.places.dataDir);
  const json = (command: Command): boolean => command.optsWithGlobals<{ json?: boolean }>().json === true;
  const secrets = program
    .command('secrets')
    .description("values servers name in their documents' `secrets`, kept in the data folder, never printed");
  secrets
    .command('set')
    .argument('<name>', 'the secret name a server document uses')
    .description('keep a secret: its value is read from stdin (one trailing line break dropped), never from the command line')
    .option('--json', 'print one JSON document')
    .action(async (name: string, _options: unknown, command: Command) => {
      await cli.run(
        json(command),
        async () => {
          await store().set(name, await readValue());
          return { set: name };
        },
        () => `kept secret ${name}`,
      );
    });
  secrets
    .command('list')
    .description('the names of the kept secrets (never their values)')
    .option('--json', 'print one JSON document')
    .action(async (_options: unknown, command: Command) => {
      await cli.run(
        json(command),
        () => ({ secrets: store().names() }),
        ({ secrets: names }) => (names.length === 0 ? 'no secrets kept' : names.join('\n')),
      );
    });
  secrets
    .command('remove')
    .argument('<name>', 'the secret to forget')
    .description('forget a secret; servers that name it no longer start until it is set again')
    .option('--json', 'print one JSON document')
    .action(async (name: string, _options: unknown, command: Command) => {
      await cli.run(
        json(command),
        async () => {
          await store().remove(name);
          return { removed: name };
        },
        () => `removed secret ${name}`,
      );
    });
}

/** Everything on stdin, without the one line break `echo` and editors end it with. */
async function readValue(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export * from './pluginFixtures.js';

/** A real HTTPS git server (git http-backend behind Basic auth) for tests. */
export interface GitHttpsServer {
  /** `https://<user>:<password>@127.0.0.1:<port>/<repo>`. */
  urlWithCredentials(repo: string): string;
  /** The same URL without credentials. */
  url(repo: string): string;
  /** The CA certificate git must trust: put it in `http.sslCAInfo`. */
  readonly caFile: string;
  /** Every `Authorization`-less or wrong-credential request answered 401, in order. */
  readonly refusedRequests: number;
  close(): Promise<void>;
}

/**
 * Serves the bare or non-bare repositories under `reposDir` over HTTPS on 127.0.0.1 with a
 * self-signed certificate made by `openssl` in `workDir`. Requests without the right Basic
 * credentials get 401, so a clone only works when the URL carries them.
 */
export async function startGitHttpsServer(
  reposDir: string,
  workDir: string,
  credentials: { user: string; password: string },
): Promise<GitHttpsServer> {
  const keyFile = path.join(workDir, 'server-key.pem');
  const caFile = path.join(workDir, 'server-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const expected = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
  let refused = 0;
  const server = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(caFile) }, (req, res) => {
    if (req.headers.authorization !== expected) {
      refused += 1;
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: reposDir,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: credentials.user,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(backend.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      headersSent = true;
      res.write(head.subarray(end + 4));
    });
    backend.on('close', () => res.end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (repo) => `https://127.0.0.1:${port}/${repo}`,
    urlWithCredentials: (repo) => `https://${credentials.user}:${credentials.password}@127.0.0.1:${port}/${repo}`,
    caFile,
    get refusedRequests() {
      return refused;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** A HOME folder whose `.gitconfig` holds `config` (section → key → value). */
export function gitHome(dir: string, config: Readonly<Record<string, Readonly<Record<string, string>>>>): string {
  fs.mkdirSync(dir, { recursive: true });
  const text = Object.entries(config)
    .map(
      ([section, values]) =>
        `[${section}]\n${Object.entries(values)
          .map(([key, value]) => `\t${key} = ${value}`)
          .join('\n')}`,
    )
    .join('\n');
  fs.writeFileSync(path.join(dir, '.gitconfig'), `${text}\n`);
  return dir;
}

/** What {@link stallingGit} does when git is run with its subcommand. */
export interface StallingGitOptions {
  /** The git subcommand to stall (`clone`, `merge`, `rev-parse` …); every other one runs at once. */
  readonly subcommand: string;
  /** Written with the stalled process's pid, so a test can see whether it outlived its parent. */
  readonly pidFile: string;
  /** Leave `.git/index.lock` in the folder git runs in first, as a git killed mid-merge does. */
  readonly leaveIndexLock?: boolean;
  /** How long it stalls before it becomes the real git; default 60 s. */
  readonly seconds?: number;
}

/**
 * A folder holding a `git` (perl) that stalls one subcommand before it execs the real git: put
 * it first in the PATH git is run with to kill or time out Loadout while git is at work. The
 * stalled process is the one Loadout started (exec keeps its pid), like a slow real git.
 */
export function stallingGit(dir: string, options: StallingGitOptions): string {
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  fs.mkdirSync(dir, { recursive: true });
  const script = `#!/usr/bin/perl
my $stall = grep { $_ eq ${JSON.stringify(options.subcommand)} } @ARGV;
if ($stall) {
  open(my $pid, '>', ${JSON.stringify(options.pidFile)}); print $pid "$$\\n"; close($pid);
  ${options.leaveIndexLock === true ? "open(my $lock, '>', '.git/index.lock'); close($lock);" : ''}
  sleep(${options.seconds ?? 60});
}
exec(${JSON.stringify(realGit)}, @ARGV) or die "cannot run git: $!";
`;
  fs.writeFileSync(path.join(dir, 'git'), script, { mode: 0o755 });
  return dir;
}

import fs from 'node:fs';
import path from 'node:path';
import type { StaticAssets } from '@loadout/api';
import { isInside, trackedFs } from '@loadout/files';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Content types by extension; a file of any other kind in the asset folder is not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** A file or folder name that can be a route segment as it is. */
const SERVABLE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * Serves a contributed folder of static files (the capability screen), `index.html` also at `/`.
 * The routes are the files found in the folder when the server starts, one GET each, so no
 * request path is ever joined onto a folder: nothing outside the folder can be reached, and there
 * is no directory listing. A symlink is served only when its real target is inside the folder.
 */
export function registerStaticAssets(app: FastifyInstance, assets: StaticAssets): void {
  const root = trackedFs.realpathSync(assets.dir);
  for (const { relative, file } of listAssets(root, root)) {
    const type = CONTENT_TYPES[path.extname(relative).toLowerCase()] as string;
    const send = async (_request: unknown, reply: FastifyReply) => serveAsset(reply, file, type, assets.contentSecurityPolicy);
    const urlPath = `/${relative.split(path.sep).join('/')}`;
    app.get(urlPath, send);
    if (relative === 'index.html') app.get('/', send);
  }
}

async function serveAsset(reply: FastifyReply, file: string, type: string, contentSecurityPolicy: string): Promise<FastifyReply> {
  const body = await fs.promises.readFile(file);
  void reply.type(type).header('referrer-policy', 'no-referrer');
  if (type.startsWith('text/html')) void reply.header('content-security-policy', contentSecurityPolicy);
  return reply.send(body);
}

/**
 * The servable files under `dir`: their path relative to `root` and their real path, which is what
 * is read. A folder reached twice (a link loop) is read once.
 */
function listAssets(root: string, dir: string, seen = new Set<string>([root])): { relative: string; file: string }[] {
  const found: { relative: string; file: string }[] = [];
  for (const entry of trackedFs.readdirSync(dir, { withFileTypes: true })) {
    // Hidden files stay hidden; a name the router would read as a parameter or wildcard is skipped.
    if (!SERVABLE_NAME.test(entry.name)) continue;
    const full = path.join(dir, entry.name);
    let real: string;
    try {
      real = trackedFs.realpathSync(full);
    } catch {
      continue;
    }
    if (!isInside(root, real)) continue;
    const stat = trackedFs.statSync(real);
    if (stat.isDirectory()) {
      if (seen.has(real)) continue;
      seen.add(real);
      found.push(...listAssets(root, full, seen));
    } else if (stat.isFile() && CONTENT_TYPES[path.extname(entry.name).toLowerCase()] !== undefined)
      found.push({ relative: path.relative(root, full), file: real });
  }
  return found;
}

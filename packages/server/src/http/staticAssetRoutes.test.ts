import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { webAssets } from '@loadout/web';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerStaticAssets } from './staticAssetRoutes.js';

let app: FastifyInstance | null = null;

afterEach(async () => {
  await app?.close();
  app = null;
  removeTestdirs();
});

/** A real server on a free loopback port serving `assets`; answers its base URL. */
async function serve(assets: string): Promise<string> {
  app = Fastify({ logger: false });
  registerStaticAssets(app, { dir: assets, contentSecurityPolicy: webAssets.contentSecurityPolicy });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** A GET with the path sent exactly as written: no client folds `..` or decodes `%2e` first. */
async function get(base: string, rawPath: string): Promise<{ status: number; type: string | null; body: string; csp: string | null }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, path: rawPath, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: response.headers['content-type'] ?? null,
          body,
          csp: (response.headers['content-security-policy'] as string | undefined) ?? null,
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('registerStaticAssets', () => {
  it('serves index.html at / and each asset with its content type', async () => {
    const assets = testdir({
      'index.html': '<!doctype html><title>x</title>',
      'app.js': 'export {};',
      'styles.css': 'body{}',
      views: { 'tasksView.js': 'export {};' },
      'favicon.svg': '<svg/>',
    });
    const base = await serve(assets);

    const index = await get(base, '/');
    expect(index).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', body: '<!doctype html><title>x</title>' });
    expect(index.csp).toContain("script-src 'self'");
    expect((await get(base, '/index.html')).status).toBe(200);
    expect(await get(base, '/app.js')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
    expect(await get(base, '/styles.css')).toMatchObject({ status: 200, type: 'text/css; charset=utf-8' });
    expect(await get(base, '/views/tasksView.js')).toMatchObject({ status: 200, body: 'export {};' });
    expect(await get(base, '/favicon.svg')).toMatchObject({ status: 200, type: 'image/svg+xml' });
  });

  it('lists no folder, serves no hidden or unknown file, and reaches nothing outside the folder', async () => {
    const root = testdir({
      secret: 'outside the assets\n',
      assets: { 'index.html': 'ok', '.env': 'TOKEN=1', 'notes.txt': 'plain', views: { 'a.js': '' } },
    });
    const assets = path.join(root, 'assets');
    fs.symlinkSync(path.join(root, 'secret'), path.join(assets, 'leak.js'));
    fs.symlinkSync(assets, path.join(assets, 'views', 'loop'));
    const base = await serve(assets);

    for (const probe of [
      '/views',
      '/views/',
      '/.env',
      '/notes.txt',
      '/leak.js',
      '/../secret',
      '/%2e%2e/secret',
      '/views/..%2f..%2fsecret',
      '/views/loop/index.html',
    ]) {
      const answer = await get(base, probe);
      expect(answer.status, probe).toBe(404);
      expect(answer.body, probe).not.toContain('outside the assets');
    }
  });

  it('serves the screen the web package ships', async () => {
    const base = await serve(webAssets.dir);
    const index = await get(base, '/');
    expect(index.status).toBe(200);
    for (const [, src] of index.body.matchAll(/(?:src|href)="(\/[^"]+)"/g)) expect((await get(base, src as string)).status, src).toBe(200);
  });
});

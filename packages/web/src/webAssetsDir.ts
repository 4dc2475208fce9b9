import path from 'node:path';

/**
 * The absolute path of the folder holding the capability screen's static files (`index.html`,
 * its ES modules, its styles). The files are plain browser code and are not compiled, so the
 * folder is the same whether this module runs from `src` or from `dist`.
 *
 * @example
 * app.get('/', (_request, reply) => reply.type('text/html').send(fs.readFileSync(path.join(webAssetsDir, 'index.html'))));
 */
export const webAssetsDir: string = path.resolve(import.meta.dirname, '..', 'public');

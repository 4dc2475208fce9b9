import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationCatalogueRecord } from './NotificationCatalogue.js';
import { notificationsModule } from './notificationsModule.js';

afterEach(removeTestdirs);

describe('notification catalogues', () => {
  it('reads valid catalogues and reports invalid ones by file', async () => {
    const home = testdir({
      capabilities: {
        notifications: {
          'runs.json': JSON.stringify({ name: 'Runs', notifications: [{ id: 'task.run.failed', title: 'Failed', severity: 'error' }] }),
          'bad.json': JSON.stringify({ name: 'Bad', notifications: [{ id: 'x', title: 'X', severity: 'loud' }] }),
        },
      },
    });
    const container = createKernel({ places: resolvePlaces({}, home) }, [
      notificationsModule,
      { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
    ]);
    const session = await container.resolve(SessionLoader).open();
    const catalogues = session.recordsOf<NotificationCatalogueRecord>('notification');
    expect(catalogues.map((c) => [c.id, c.notifications.map((n) => n.id)])).toEqual([['runs', ['task.run.failed']]]);
    expect(session.diagnostics).toEqual([
      expect.objectContaining({
        code: 'DOCUMENT_INVALID',
        message: expect.stringMatching(/bad\.json: ✖ .+ → at notifications\[0\]\.severity$/),
      }),
    ]);
  });
});

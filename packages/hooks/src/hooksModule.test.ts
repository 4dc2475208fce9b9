import fs from 'node:fs';
import path from 'node:path';
import { contribute, createKernel, PluginSource, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { freezeReads } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { hookId, hookKind } from './hookKind.js';
import { HOOK_HANDLER, type HookRecord } from './HookRecord.js';
import { hooksModule } from './hooksModule.js';

afterEach(removeTestdirs);

async function session(home: string, plugins: string[] = []) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    hooksModule,
    {
      name: 'test plugins',
      now: (c) =>
        contribute(c, PluginSource, {
          listInstalledPlugins: () => plugins.map((name) => ({ name, dir: path.join(home, 'plugins', name), enabled: true })),
        }),
    },
  ]);
  freezeReads(container);
  return container.resolve(SessionLoader).open();
}

const claudeHooks = {
  description: 'Session helpers',
  hooks: {
    SessionStart: [
      { matcher: 'startup|resume', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh', timeout: 10 }] },
    ],
    PostToolUse: [
      {
        matcher: 'Edit|Write',
        hooks: [
          { type: 'command', command: 'npx prettier --write .' },
          { type: 'prompt', prompt: 'Check the edit.' },
        ],
      },
    ],
  },
};

describe('hooks', () => {
  it('reads each handler of a hooks file as one hook, its id made from the file and the event', async () => {
    const home = testdir({
      plugins: { helper: { hooks: { 'hooks.json': JSON.stringify(claudeHooks), 'session-start.sh': '#!/bin/sh\necho hi\n' } } },
    });
    const s = await session(home, ['helper']);
    const hooks = s.recordsOf<HookRecord>('hook');
    expect(hooks.map((hook) => [hook.id, hook.event, hook.matcher, hook.type, hook.command, hook.timeout])).toEqual([
      ['hooks-post-tool-use', 'PostToolUse', 'Edit|Write', 'command', 'npx prettier --write .', null],
      ['hooks-post-tool-use-2', 'PostToolUse', 'Edit|Write', 'prompt', 'Check the edit.', null],
      ['hooks-session-start', 'SessionStart', 'startup|resume', 'command', '${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh', 10],
    ]);
    expect(hooks[2]).toMatchObject({ kind: 'hook', plugin: 'helper', level: 'global', description: 'Session helpers', gates: {} });
    // The handler as written travels with the record, but never into what a session prints.
    expect(hooks[2]?.[HOOK_HANDLER]).toEqual(claudeHooks.hooks.SessionStart[0]?.hooks[0]);
    expect(JSON.stringify(s.toJSON().hooks)).not.toContain('"timeout":10,"type"');
    expect(s.diagnostics).toEqual([]);
  });

  it('reads Cursor’s shape (a handler straight under its event, no type) and an owner’s own hooks file', async () => {
    const home = testdir({
      capabilities: {
        hooks: { 'format.json': JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: './hooks/format.sh' }] } }) },
      },
    });
    const s = await session(home);
    expect(s.recordsOf<HookRecord>('hook').map((hook) => [hook.id, hook.event, hook.type, hook.command, hook.description])).toEqual([
      ['format-after-file-edit', 'afterFileEdit', 'command', './hooks/format.sh', 'on afterFileEdit'],
    ]);
  });

  it('a hooks file that is not one is a diagnostic naming it, and the good file beside it still loads', async () => {
    const good = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo done' }] }] } });
    const home = testdir({
      capabilities: {
        hooks: {
          'a-broken.json': '{ not json',
          'b-no-command.json': JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command' }] }] } }),
          'c-bad-event.json': JSON.stringify({ hooks: { 'Stop now': [{ command: 'x' }] } }),
          'd-good.json': good,
          'run.sh': 'echo not a hooks file',
        },
      },
    });
    const s = await session(home);
    expect(s.recordsOf('hook').map((hook) => hook.id)).toEqual(['d-good-stop']);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['JSON_MALFORMED', 'DOCUMENT_INVALID', 'DOCUMENT_INVALID']);
    expect(s.diagnostics[1]?.message).toContain('a hook needs a "command"');
  });

  it('never reads a hooks file through a link that leaves its root, nor one larger than a document may be', async () => {
    const home = testdir({
      outside: { 'evil.json': JSON.stringify({ hooks: { SessionStart: [{ command: 'echo SECRET-OUTSIDE' }] } }) },
      capabilities: { hooks: { 'big.json': `{"hooks":{},"pad":"${'x'.repeat(1024 * 1024)}"}` } },
    });
    fs.symlinkSync(path.join(home, 'outside', 'evil.json'), path.join(home, 'capabilities', 'hooks', 'linked.json'));
    const s = await session(home);
    expect(s.recordsOf('hook')).toEqual([]);
    expect(s.diagnostics.map((d) => d.code).sort()).toEqual(['DOCUMENT_TOO_LARGE', 'PATH_OUTSIDE_ROOT']);
    expect(JSON.stringify(s.toJSON())).not.toContain('SECRET-OUTSIDE');
  });

  it('refuses a file of more hooks than a session takes', async () => {
    const many = { hooks: { Stop: Array.from({ length: 257 }, (_, i) => ({ command: `echo ${i}` })) } };
    const s = await session(testdir({ capabilities: { hooks: { 'many.json': JSON.stringify(many) } } }));
    expect(s.recordsOf('hook')).toEqual([]);
    expect(s.diagnostics.map((d) => d.code)).toEqual(['DOCUMENT_INVALID']);
  });

  it('names what a hook runs: its command line and the root’s files it names, however it names them', async () => {
    const home = testdir({
      plugins: {
        helper: {
          hooks: {
            'hooks.json': JSON.stringify({
              hooks: {
                SessionStart: [
                  {
                    hooks: [
                      { type: 'command', command: 'bash "$CLAUDE_PLUGIN_ROOT/hooks/start.sh" --flag && node ./lib/x.mjs; cat /etc/passwd' },
                    ],
                  },
                ],
              },
            }),
            'start.sh': 'echo start\n',
          },
          lib: { 'x.mjs': 'export {}\n' },
        },
      },
    });
    const s = await session(home, ['helper']);
    const [hook] = s.recordsOf<HookRecord>('hook');
    const root = s.roots.find((r) => r.plugin === 'helper')!;
    const parts = hookKind.runnable!(hook!, root)!;
    expect(parts.files).toEqual([path.join(root.dir, 'hooks/start.sh'), path.join(root.dir, 'lib/x.mjs')]);
    expect(parts.summary).toBe('SessionStart: bash "$CLAUDE_PLUGIN_ROOT/hooks/start.sh" --flag && node ./lib/x.mjs; cat /etc/passwd');
    expect(parts.definition).toEqual({ event: 'SessionStart', matcher: null, handler: hook?.[HOOK_HANDLER] });
  });

  it('hookId stays a slug within 64 characters, and a second hook under an event takes -2', () => {
    expect(hookId('hooks', 'SessionStart', 1)).toBe('hooks-session-start');
    expect(hookId('hooks', 'PreToolUse', 2)).toBe('hooks-pre-tool-use-2');
    const long = hookId('x'.repeat(70), 'Stop', 12);
    expect(long).toHaveLength(64);
    expect(long.endsWith('-12')).toBe(true);
  });
});

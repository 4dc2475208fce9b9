import { describe, expect, it } from 'vitest';
import { GIT_MALLOC_TUNABLE, gitEnvironment, gitMallocTunables } from './PluginGit.js';

describe('gitEnvironment', () => {
  it('gives git a fixed malloc trim threshold, so packing and checking out objects does not hand memory back and ask for it again per object', () => {
    expect(gitEnvironment({ PATH: '/bin' }).GLIBC_TUNABLES).toBe('glibc.malloc.trim_threshold=16777216');
    expect(GIT_MALLOC_TUNABLE).toMatch(/^glibc\.malloc\.trim_threshold=\d+$/);
  });

  it("keeps the user's own glibc tunables, adding the threshold after them", () => {
    expect(gitEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe(
      `glibc.malloc.arena_max=2:${GIT_MALLOC_TUNABLE}`,
    );
  });

  it('leaves a threshold the user set alone, whatever its value', () => {
    expect(gitMallocTunables('glibc.malloc.trim_threshold=0')).toBe('glibc.malloc.trim_threshold=0');
    expect(gitMallocTunables('glibc.pthread.rseq=0:glibc.malloc.trim_threshold=65536')).toBe(
      'glibc.pthread.rseq=0:glibc.malloc.trim_threshold=65536',
    );
    expect(gitMallocTunables('')).toBe(GIT_MALLOC_TUNABLE);
  });

  it('still leaves out every GIT_* variable of the caller and keeps its prompts off', () => {
    const env = gitEnvironment({ PATH: '/bin', GIT_DIR: '/elsewhere', GIT_CONFIG_GLOBAL: '/x', HOME: '/home/u' });
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_CONFIG_GLOBAL).toBeUndefined();
    expect(env).toMatchObject({ PATH: '/bin', HOME: '/home/u', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', LC_ALL: 'C' });
  });
});

import { removeTestdirs, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, workspaceTree } from '../server/support.js';

// Item 12 of the hardening issue: a JSON-RPC batch of expensive listings must neither build an
// answer of hundreds of megabytes nor keep the server from answering anyone else meanwhile.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const PLUGINS = 100;
const SKILLS_PER_PLUGIN = 30;
const DESCRIPTION = 'Describes at length what this skill does, so that every record weighs what a real one does. '.repeat(5);

/** The owner's workspace and PLUGINS plugins of SKILLS_PER_PLUGIN skills each. */
function crowdedTree(): { tree: TreeDescription; plugins: string[] } {
  const plugins: Record<string, TreeDescription> = {};
  for (let p = 0; p < PLUGINS; p += 1) {
    const skills: Record<string, TreeDescription> = {};
    for (let s = 0; s < SKILLS_PER_PLUGIN; s += 1)
      skills[`skill-${p}-${s}`] = { 'SKILL.md': `---\nname: skill-${p}-${s}\ndescription: ${DESCRIPTION}\n---\nBody.\n` };
    plugins[`plugin-${p}`] = { skills };
  }
  return { tree: { ...workspaceTree(), plugins }, plugins: Object.keys(plugins) };
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'skills.list', params: {} });

describe('12 JSON-RPC batches', () => {
  it('12 a batch over the call limit is refused whole; a batch of big answers stops at the size budget', async () => {
    const { tree, plugins } = crowdedTree();
    server = await TestServer.start({ tree, plugins });
    const one = await server.request('POST', '/rpc', { body: call(0) });
    const size = one.text.length;
    expect((one.body as { result: unknown[] }).result).toHaveLength(PLUGINS * SKILLS_PER_PLUGIN + 1);

    const hundred = await server.request('POST', '/rpc', { body: Array.from({ length: 100 }, (_, i) => call(i)) });
    expect(hundred.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('at most 20 calls') } });

    // Twenty calls whose answers together pass the budget: the ones past it are answered with an
    // error, and the whole answer stays near the budget.
    const batch = server.request('POST', '/rpc', { body: Array.from({ length: 20 }, (_, i) => call(i)) });
    // The server keeps answering others while the batch runs.
    const order: string[] = [];
    const health = server.request('GET', '/api/health', { token: null }).then((answer) => {
      order.push('health');
      return answer;
    });
    const answer = await batch.then((result) => {
      order.push('batch');
      return result;
    });
    expect((await health).status).toBe(200);
    expect(order).toEqual(['health', 'batch']);
    const answers = answer.body as { id: number; result?: unknown; error?: { code: number; data?: { code: string } } }[];
    expect(answers).toHaveLength(20);
    const answered = answers.filter((item) => item.result !== undefined).length;
    const refused = answers.filter((item) => item.error?.data?.code === 'RESPONSE_TOO_LARGE');
    expect(answered).toBeGreaterThan(0);
    expect(answered + refused.length).toBe(20);
    expect(refused.length).toBeGreaterThan(0);
    expect(answer.text.length).toBeLessThanOrEqual(16 * 1024 * 1024 + size);
    // The refused calls come last: a client retries them in a batch of its own.
    expect(answers.slice(answered).every((item) => item.error?.data?.code === 'RESPONSE_TOO_LARGE')).toBe(true);
  });
});

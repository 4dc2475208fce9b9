import { ConflictError, InvalidInputError } from '@loadout/files';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { handleJsonRpc, type RpcCallScope, type WiredRpcMethod } from './JsonRpc.js';
import { defineRpcMethod } from '@loadout/api';

const calls: string[] = [];
const methods = new Map<string, WiredRpcMethod>(
  [
    defineRpcMethod({ name: 'math.add', params: z.strictObject({ a: z.number(), b: z.number() }), handler: ({ a, b }) => a + b }),
    defineRpcMethod({ name: 'note', params: z.strictObject({ text: z.string() }), handler: ({ text }) => void calls.push(text) }),
    defineRpcMethod({
      name: 'refuse',
      params: z.object({}),
      handler: () => {
        throw new ConflictError('TASK_READ_ONLY', 'task "x" is provided by plugin p');
      },
    }),
    defineRpcMethod({
      name: 'invalid',
      params: z.object({}),
      handler: () => {
        throw new InvalidInputError('PROJECT_NOT_FOUND', 'project folder /nope does not exist');
      },
    }),
    defineRpcMethod({
      name: 'crash',
      params: z.object({}),
      handler: () => {
        throw new Error('secret internals');
      },
    }),
  ].map((method) => [method.name, { method, deps: {} }]),
);

let closed = 0;
const scope = (): RpcCallScope => ({
  context: { openSession: () => Promise.reject(new Error('no sessions here')) },
  close: () => (closed += 1),
});
const rpc = async (body: unknown): Promise<unknown> => {
  const answer = await handleJsonRpc(typeof body === 'string' ? body : JSON.stringify(body), methods, scope);
  return answer === null ? null : (JSON.parse(answer) as unknown);
};

describe('handleJsonRpc', () => {
  it('answers a call with its result and closes its scope', async () => {
    closed = 0;
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'math.add', params: { a: 2, b: 3 } })).toEqual({ jsonrpc: '2.0', id: 1, result: 5 });
    expect(closed).toBe(1);
  });

  it('answers the errors JSON-RPC 2.0 defines', async () => {
    expect(await rpc('{"jsonrpc": "2.0", "method": ')).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await rpc({ id: 1, method: 'math.add' })).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(await rpc({ jsonrpc: '2.0', id: { no: 1 }, method: 'math.add' })).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await rpc({ jsonrpc: '2.0', id: 'x', method: 'math.nope' })).toMatchObject({ id: 'x', error: { code: -32601 } });
    expect(await rpc({ jsonrpc: '2.0', id: 2, method: 'math.add', params: { a: 'two', b: 3 } })).toMatchObject({
      id: 2,
      error: { code: -32602, message: expect.stringContaining('→ at a'), data: { code: 'PARAMS_INVALID' } },
    });
    expect(await rpc({ jsonrpc: '2.0', id: 3, method: 'math.add', params: [1, 2] })).toMatchObject({ error: { code: -32602 } });
    expect(await rpc([])).toMatchObject({ error: { code: -32600 } });
  });

  it("maps a Loadout error's category to a code and carries its stable code in data", async () => {
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'refuse' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32009, message: 'task "x" is provided by plugin p', data: { code: 'TASK_READ_ONLY', category: 'conflict' } },
    });
    expect(await rpc({ jsonrpc: '2.0', id: 1, method: 'invalid' })).toMatchObject({
      error: { code: -32602, data: { code: 'PROJECT_NOT_FOUND' } },
    });
  });

  it('hides the inside of an unexpected failure', async () => {
    const answer = await rpc({ jsonrpc: '2.0', id: 1, method: 'crash' });
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
  });

  it('runs notifications without answering, and answers a batch call by call', async () => {
    calls.length = 0;
    expect(await rpc({ jsonrpc: '2.0', method: 'note', params: { text: 'one' } })).toBeNull();
    const answers = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'math.add', params: { a: 1, b: 1 } },
      { jsonrpc: '2.0', method: 'note', params: { text: 'two' } },
      { jsonrpc: '2.0', id: 2, method: 'math.nope' },
      7,
    ]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: 2 },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found: math.nope' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a call is an object' } },
    ]);
    expect(calls).toEqual(['one', 'two']);
  });
});

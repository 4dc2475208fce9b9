import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The id of the scripted tool uses, numbered from 0; other tool uses (waits) are named otherwise. */
const STEP_ID = 'toolu_scripted_';
/** How many times the model waits for a step's tool to be offered before it gives up and ends. */
const MAX_WAITS = 100;

/** One tool use the scripted model asks for, in order. */
export interface ScriptedToolUse {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** A content block of a request the client sent, as the Messages API carries it. */
interface Block {
  readonly type: string;
  readonly name?: string;
  readonly tool_use_id?: string;
  readonly content?: unknown;
}

/** What the client sent the scripted model: each request's tool names, and the results of its tool uses. */
export interface ScriptedModel {
  readonly url: string;
  /** The tool names of every request that offered tools (the client's own and its MCP servers'). */
  readonly offeredTools: string[][];
  /** Each tool result the client sent back, by the id of the tool use it answers, as text. */
  readonly results: Map<string, string>;
  close(): Promise<void>;
}

/**
 * A local stand-in for the Anthropic Messages API that Claude Code is pointed at
 * (`ANTHROPIC_BASE_URL`), so a real client can be made to call MCP tools without any model: a
 * request that offers tools is answered with the next tool use of `script` (as the streamed events
 * the API sends), once the previous one's result came back and once its tool is offered (until
 * then with a read of nothing, while the client's MCP servers connect); past the script, and for
 * any other request (titles, checks), with a short text. Nothing leaves the machine.
 */
export async function scriptedModel(script: readonly ScriptedToolUse[]): Promise<ScriptedModel> {
  const offeredTools: string[][] = [];
  const results = new Map<string, string>();
  let waits = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !(request.url ?? '').startsWith('/v1/messages')) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"type":"error","error":{"type":"not_found_error","message":"no"}}');
        return;
      }
      const sent = JSON.parse(body) as {
        tools?: { name: string }[];
        messages?: { content: string | Block[] }[];
        stream?: boolean;
        model?: string;
      };
      if ((request.url ?? '').startsWith('/v1/messages/count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
        return;
      }
      for (const message of sent.messages ?? [])
        if (Array.isArray(message.content))
          for (const block of message.content)
            if (block.type === 'tool_result' && block.tool_use_id !== undefined) results.set(block.tool_use_id, textOf(block.content));
      const tools = (sent.tools ?? []).map((tool) => tool.name);
      if (tools.length > 0) offeredTools.push(tools);
      const done = [...results.keys()].filter((id) => id.startsWith(STEP_ID)).length;
      const step = tools.length > 0 ? script[done] : undefined;
      let blocks: Parameters<typeof send>[2] = [{ type: 'text', text: 'done' }];
      if (step !== undefined && tools.includes(step.name))
        blocks = [{ type: 'tool_use', id: `${STEP_ID}${done}`, name: step.name, input: step.input }];
      else if (step !== undefined && waits < MAX_WAITS) {
        // The client's MCP servers are still connecting: a harmless read of nothing, then ask again.
        waits += 1;
        blocks = [
          { type: 'tool_use', id: `toolu_wait_${waits}`, name: 'Read', input: { file_path: '/nonexistent/loadout-scripted-wait' } },
        ];
      }
      const stop = blocks[0]?.type === 'tool_use' ? 'tool_use' : 'end_turn';
      setTimeout(
        () => send(response, sent.model ?? 'claude-scripted', blocks, stop, sent.stream === true),
        stop === 'tool_use' && waits > 0 ? 100 : 0,
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    offeredTools,
    results,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? JSON.stringify(part)).join('\n');
  return JSON.stringify(content);
}

/** Answers with `blocks` as one message, streamed as the API streams it when asked to. */
function send(
  response: http.ServerResponse,
  model: string,
  blocks: readonly ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown })[],
  stopReason: string,
  stream: boolean,
): void {
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_scripted_${Date.now()}`, type: 'message', role: 'assistant', model, stop_sequence: null, usage };
  if (!stream) {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>): void =>
    void response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { ...message, content: [], stop_reason: null } });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  event('message_stop', {});
  response.end();
}

import type { EventStream } from '@loadout/api';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How often an idle stream sends a comment, so proxies and browsers keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * Takes over the response for a Server-Sent Events stream. `open` tracks live streams so the
 * server can end them when it stops (a stream otherwise keeps the server from closing).
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, open: Set<EventStream>): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-content-type-options': 'nosniff',
  });
  raw.write(': stream open\n\n');
  const listeners: (() => void)[] = [];
  let closed = false;
  const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
  const stream: EventStream = {
    send(event, data) {
      if (closed) return;
      const lines = JSON.stringify(data)
        .split('\n')
        .map((line) => `data: ${line}`);
      raw.write(`event: ${event}\n${lines.join('\n')}\n\n`);
    },
    close() {
      if (closed) return;
      finish();
      raw.end();
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(keepalive);
    open.delete(stream);
    for (const listener of listeners.splice(0)) listener();
  };
  request.raw.once('close', finish);
  raw.once('close', finish);
  open.add(stream);
  return stream;
}

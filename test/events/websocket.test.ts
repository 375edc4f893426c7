import { evictDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { subscription } from '../../src/events/event-log';
import { authorized, deploy } from '../support/client';

interface Message {
  id: number;
  event: string;
  data: { domain: string };
}

/** The text messages a WebSocket receives, with a way to wait for them. */
class Inbox {
  readonly raw: string[] = [];
  #changed = () => {};

  constructor(readonly socket: WebSocket) {
    socket.accept();
    socket.addEventListener('message', (message) => {
      this.raw.push(message.data as string);
      this.#changed();
    });
  }

  messages(domains?: string[]): Message[] {
    const all = this.raw.map((text) => JSON.parse(text) as Message);
    return domains ? all.filter((message) => domains.includes(message.data.domain)) : all;
  }

  async until(condition: () => boolean, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`Timed out with ${this.raw.length} messages`);
      await new Promise<void>((resolve) => {
        this.#changed = resolve;
        setTimeout(resolve, 200);
      });
    }
  }
}

async function connect(query = ''): Promise<Inbox> {
  const response = await authorized(`/v2/events${query}`, { headers: { upgrade: 'websocket' } }, { scope: 'global_read' });
  expect(response.status).toBe(101);
  return new Inbox(response.webSocket!);
}

describe('GET /v2/events (WebSocket)', () => {
  it('pushes each event as {id, event, data} with data byte-equal to the deploy response, and replays ?since=', async () => {
    const inbox = await connect();
    const response = await deploy('ws-live.example', { 'index.html': 'ws' });
    const body = await response.text();
    await inbox.until(() => inbox.messages(['ws-live.example']).length === 1);
    const [message] = inbox.messages(['ws-live.example']);
    expect(inbox.raw).toContain(`{"id":${message!.id},"event":"site-deploy","data":${body}}`);

    const replay = await connect(`?since=${message!.id - 1}`);
    await replay.until(() => replay.raw.length > 0);
    expect(replay.messages()[0]).toEqual(message);
    inbox.socket.close(1000);
    replay.socket.close(1000);
  });

  it('keeps delivering after the log hibernates', async () => {
    const log = env.EVENTS.get(env.EVENTS.idFromName('test-hibernation'));
    const response = await log.fetch(subscription(undefined, 'websocket'));
    const inbox = new Inbox(response.webSocket!);
    await evictDurableObject(log);
    await log.append([{ messageId: 'after-sleep', type: 'site-deploy', data: '{"type":"site-deploy","domain":"sleep.example"}' }]);
    await inbox.until(() => inbox.raw.length === 1);
    expect(inbox.raw[0]).toBe('{"id":1,"event":"site-deploy","data":{"type":"site-deploy","domain":"sleep.example"}}');
    inbox.socket.close(1000);
  });
});

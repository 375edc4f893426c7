/** `GET /v2/user/events` (docs/events.md, "Your own events") as a WebSocket: each socket gets its own audience's events only, live and replayed. */
import { describe, expect, it } from 'vitest';
import { authorized, deploy, type TokenOptions } from '../support/client';

/** A WebSocket's messages, parsed, with a wait for a condition on them. */
function inbox(response: Response): { messages: { id: number; event: string; data: Record<string, unknown> }[]; until(check: () => boolean): Promise<void> } {
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  socket.accept();
  const messages: { id: number; event: string; data: Record<string, unknown> }[] = [];
  let wake = () => {};
  socket.addEventListener('message', (message) => {
    messages.push(JSON.parse(message.data as string));
    wake();
  });
  return {
    messages,
    async until(check) {
      while (!check()) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

const open = async (path: string, as: TokenOptions) => inbox(await authorized(path, { headers: { upgrade: 'websocket' } }, as));

describe('GET /v2/user/events (WebSocket)', () => {
  it("pushes a user's own events to their sockets only, and the service's events to the service's sockets only", async () => {
    const me: TokenOptions = { user: 'github|ws-user-stream' };
    const mine = await open('/v2/user/events', me);
    const someoneElse = await open('/v2/user/events', { user: 'github|ws-someone-else' });
    const service = await open('/v2/events', { scope: 'global_read' });

    const made = await authorized('/v2/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'ws', scopes: ['deploy'] }) }, me);
    expect(made.status).toBe(201);
    const { id } = await made.json<{ id: string }>();
    expect((await deploy('ws-user-stream.example', { 'index.html': 'x' }, undefined, me)).status).toBe(200);

    await mine.until(() => mine.messages.length > 0);
    await service.until(() => service.messages.some((message) => message.data.domain === 'ws-user-stream.example'));
    expect(mine.messages).toEqual([{ id: expect.any(Number), event: 'token-create', data: expect.objectContaining({ type: 'token-create', userId: 'github|ws-user-stream', id }) }]);
    expect(service.messages.map((message) => message.event)).not.toContain('token-create');
    // The deploy that followed reached the service's socket, so the user's sockets had their chance: none took it.
    expect(mine.messages.map((message) => message.event)).toEqual(['token-create']);
    expect(someoneElse.messages).toEqual([]);

    const replay = await open(`/v2/user/events?since=${mine.messages[0]!.id - 1}`, me);
    await replay.until(() => replay.messages.length > 0);
    expect(replay.messages).toEqual(mine.messages);
  });
});

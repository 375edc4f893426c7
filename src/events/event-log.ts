import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../platform/env';
import { Problem } from '../http/problem';
import { settingsOf } from '../platform/settings';
import type { Audience, IncomingEvent, LoggedEvent } from './event';
import { type AppendedEvent, LogTable } from './log-table';
import { sseStream } from './sse-stream';
import { withoutTrust } from './trust-redaction';
import { webSocketMessage } from './wire';

const keepAliveMs = 15_000;
const dayMs = 86_400_000;
/** Events per WebSocket replay query. */
const replayPage = 500;

/** The one event log of the service: `idFromName('events')`. */
export function eventLog(env: Env): DurableObjectStub<EventLog> {
  return env.EVENTS.get(env.EVENTS.idFromName('events'));
}

/** The request the Worker sends the log for a subscriber: `since` is already validated. */
export function subscription(cursor: number | undefined, upgrade: string | null, audience: Audience = 'service'): Request {
  const url = new URL('https://event-log/subscribe');
  if (cursor !== undefined) url.searchParams.set('since', String(cursor));
  if (audience !== 'service' && 'domain' in audience) {
    url.searchParams.set('site', audience.domain);
    if (audience.claimedAt !== undefined) url.searchParams.set('claimed', String(audience.claimedAt));
    if (audience.claim !== undefined) url.searchParams.set('claim', audience.claim);
    if (audience.hidesTrust) url.searchParams.set('hides', 'trust');
  } else if (audience !== 'service') url.searchParams.set('user', audience.userId);
  return new Request(url, { headers: upgrade === null ? {} : { upgrade } });
}

function audienceOf(url: URL): Audience {
  const userId = url.searchParams.get('user');
  const domain = url.searchParams.get('site');
  if (userId !== null) return { userId };
  if (domain === null) return 'service';
  const claimed = url.searchParams.get('claimed');
  const claim = url.searchParams.get('claim');
  return { domain, ...(claimed === null ? {} : { claimedAt: Number(claimed) }), ...(claim === null ? {} : { claim }), hidesTrust: url.searchParams.get('hides') === 'trust' };
}

/** Whether `audience` may not see a site's trust policy (src/events/trust-redaction.ts). */
function hidesTrust(audience: Audience): boolean {
  return audience !== 'service' && 'domain' in audience && audience.hidesTrust === true;
}

/** `event` as `audience` receives it. */
function shownTo(audience: Audience, event: LoggedEvent): LoggedEvent {
  return hidesTrust(audience) ? withoutTrust(event) : event;
}

/**
 * Whether an event appended for `userId` (undefined: service-wide) about `domain`, made for the
 * domain's `claim` (undefined: not known), belongs to `audience`'s stream.
 */
function reaches(audience: Audience, userId: string | undefined, domain: unknown, claim: string | undefined): boolean {
  if (audience === 'service') return userId === undefined;
  if ('domain' in audience) return userId === undefined && audience.domain === domain && (claim === undefined || audience.claim === undefined || claim === audience.claim);
  return audience.userId === userId;
}

function retentionMs(env: Env): number {
  return settingsOf(env).eventsRetentionDays * dayMs;
}

/** A promise to resolve later, from outside. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The durable, ordered log of every notification, and its live fan-out. Appends and
 * subscriptions both run synchronously against SQLite, so a subscriber's replay and its
 * live events meet without a gap or an overlap. SSE subscribers read the log at their own
 * pace (see sse-stream.ts); WebSocket subscribers are hibernatable and get each event pushed.
 */
export class EventLog extends DurableObject<Env> {
  readonly #table: LogTable;
  #nextAppend = signal();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#table = new LogTable(ctx.storage);
    // Lets WebSocket clients keep their connection alive without waking a hibernated log.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'));
  }

  /** Appends a batch in order and fans the new events out. Returns every event with its id. */
  append(events: IncomingEvent[]): AppendedEvent[] {
    const now = Date.now();
    const appended = this.#table.append(events, now);
    this.#table.prune(now - retentionMs(this.env));
    const fresh = appended.flatMap((event, index) => (event.isNew ? [{ event, userId: events[index]!.userId, claim: events[index]!.claim }] : []));
    if (fresh.length > 0) this.#fanOut(fresh);
    return appended;
  }

  /** A new subscriber: SSE, or a WebSocket when the request asks to upgrade. */
  override fetch(request: Request): Response {
    const url = new URL(request.url);
    const audience = audienceOf(url);
    const since = url.searchParams.get('since');
    const lastId = this.#table.lastId();
    const requested = since === null ? lastId : Number(since);
    const horizon = this.#table.horizon();
    // 0 is a subscriber with nothing to lose: it gets the whole retained history.
    const cursor = requested === 0 ? horizon : requested;
    if (cursor > lastId) {
      return new Problem('gone', `Event ${cursor} was never issued by this log (the last is ${lastId}): reload the state you need and subscribe without a position.`).toResponse();
    }
    if (cursor < horizon) {
      return new Problem('gone', `Events up to ${horizon} are past the retained history: reload the state you need and subscribe again without a position.`).toResponse();
    }
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') return this.#acceptWebSocket(cursor, audience);
    const reader = {
      after: (position: number, limit: number) => this.#table.after(position, limit, audience).map((event) => shownTo(audience, event)),
      horizon: () => this.#table.horizon(),
      appended: () => this.#nextAppend.promise,
    };
    return new Response(sseStream(reader, cursor, keepAliveMs), {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // Asks reverse proxies such as nginx not to buffer the stream.
        'x-accel-buffering': 'no',
      },
    });
  }

  #acceptWebSocket(cursor: number, audience: Audience): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server);
    // Kept with the socket through hibernation: whose events it is pushed.
    server.serializeAttachment(audience);
    for (let page = this.#table.after(cursor, replayPage, audience); page.length > 0; ) {
      for (const event of page) server.send(webSocketMessage(shownTo(audience, event)));
      page = this.#table.after(page.at(-1)!.id, replayPage, audience);
    }
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Wakes the SSE streams waiting for events and pushes the events to every WebSocket. A send
   * never blocks: the runtime buffers it (workerd offers no bufferedAmount to bound that buffer
   * per socket), which is why SSE, paced by its reader, is the transport for slow consumers.
   */
  #fanOut(events: { event: LoggedEvent; userId: string | undefined; claim: string | undefined }[]): void {
    const wake = this.#nextAppend.resolve;
    this.#nextAppend = signal();
    wake();
    const messages = events.map(({ event, userId, claim }) => {
      const text = webSocketMessage(event);
      const hidden = event.type === 'trust-change' ? webSocketMessage(withoutTrust(event)) : text;
      return { text, hidden, userId, claim, domain: (JSON.parse(event.data) as { domain?: unknown }).domain };
    });
    for (const socket of this.ctx.getWebSockets()) {
      // A socket accepted before audiences existed has no attachment: a service-wide subscriber.
      const audience = (socket.deserializeAttachment() as Audience | null) ?? 'service';
      try {
        const hides = hidesTrust(audience);
        for (const message of messages) if (reaches(audience, message.userId, message.domain, message.claim)) socket.send(hides ? message.hidden : message.text);
      } catch {
        // A socket that closed since the last event; the runtime drops it from getWebSockets().
      }
    }
  }

  /** Subscribers have nothing to say; pings are answered by the auto-response above. */
  override webSocketMessage(): void {}
}

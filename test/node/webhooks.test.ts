import { randomBytes } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/processes';
import { type Service, startService, token } from './support/service';

/**
 * Webhooks end to end under `wrangler dev`: WEBHOOK_URLS points at a receiver on loopback that
 * verifies every delivery with the `standardwebhooks` package, answers 500 the first time and
 * 200 after. The deploy's event must arrive, fail, and be retried through the queue.
 */

const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  verified: boolean;
}

const deliveries: Delivery[] = [];
let receiver: Server;
let service: Service;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  const verifier = new Webhook(webhookSecret);
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      let verified = true;
      try {
        verifier.verify(body, request.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      deliveries.push({ headers: request.headers, body, at: Date.now(), verified });
      response.writeHead(deliveries.length === 1 ? 500 : 200).end();
    });
  });
  const receiverPort = await listen(receiver);

  service = await startService({
    vars: { WEBHOOK_URLS: `http://127.0.0.1:${receiverPort}/hooks/sitehost`, WEBHOOK_SECRET: webhookSecret },
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** Reads SSE events from `GET /v2/events` until `done` says enough. */
async function readEvents(response: Response, done: (events: EventSourceMessage[]) => boolean): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  while (!done(events)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    events.push(value);
  }
  await reader.cancel();
  return events;
}

describe('webhooks (WEBHOOK_URLS)', () => {
  it('POSTs each event signed per Standard Webhooks, and retries with backoff after a 500', async () => {
    const globalRead = await token(service, 'github|1', 'global_read');
    const stream = await fetch(`${service.origin}/v2/events`, { headers: { authorization: `Bearer ${globalRead}` } });
    expect(stream.status).toBe(200);

    const form = new FormData();
    form.append('directory', new File(['<h1>hooked</h1>'], 'index.html', { type: 'text/html' }));
    const deployed = await fetch(`${service.origin}/v2/sites/hooked.example`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(service, 'github|1', 'deploy')}` },
      body: form,
    });
    expect(deployed.status).toBe(200);
    const result = await deployed.text();

    const [event] = await readEvents(stream, (events) => events.length > 0);
    expect(event).toMatchObject({ event: 'site-deploy', data: result });

    await waitFor(() => deliveries.length >= 2, 'the retried delivery', 60_000, [service]);
    const [failed, retried] = deliveries as [Delivery, Delivery];
    for (const delivery of [failed, retried]) {
      expect(delivery.verified).toBe(true);
      expect(delivery.body).toBe(result);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toBe(event!.id);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    // The first retry waits 5 s and is signed anew.
    expect(retried.at - failed.at).toBeGreaterThanOrEqual(4_000);
    expect(Number(retried.headers['webhook-timestamp'])).toBeGreaterThan(Number(failed.headers['webhook-timestamp']));

    // A tampered body does not verify: the receiver's check is real.
    expect(() => new Webhook(webhookSecret).verify(`${result} `, retried.headers as Record<string, string>)).toThrow();
    // Answered 200, the delivery is not sent again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(deliveries).toHaveLength(2);
  });
});

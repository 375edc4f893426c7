import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/processes';
import { type Service, startService, token } from './support/service';

/**
 * Two webhook receivers under `wrangler dev`: one takes every request and never answers, the
 * other answers at once. Deliveries to the hanging one must not hold up the other's.
 */

const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
/** Well under the 15 s a delivery may wait for its receiver's answer. */
const promptMs = 6_000;

interface Received {
  domain: string;
  at: number;
}

const hanging: ServerResponse[] = [];
const answered: Received[] = [];
let hangingReceiver: Server;
let answeringReceiver: Server;
let service: Service;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
  });
}

beforeAll(async () => {
  const verifier = new Webhook(webhookSecret);
  hangingReceiver = createServer((_request, response) => void hanging.push(response));
  answeringReceiver = createServer(async (request, response) => {
    const body = await readBody(request);
    try {
      const event = verifier.verify(body, request.headers as Record<string, string>) as { domain: string };
      answered.push({ domain: event.domain, at: Date.now() });
      response.writeHead(200).end();
    } catch {
      response.writeHead(400).end();
    }
  });
  const [hangingPort, answeringPort] = await Promise.all([listen(hangingReceiver), listen(answeringReceiver)]);
  service = await startService({
    vars: {
      WEBHOOK_URLS: `http://127.0.0.1:${hangingPort}/never-answers,http://127.0.0.1:${answeringPort}/answers`,
      WEBHOOK_SECRET: webhookSecret,
    },
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  for (const response of hanging) response.destroy();
  await Promise.all([hangingReceiver, answeringReceiver].map((server) => new Promise((resolve) => server?.close(resolve))));
});

async function deploy(domain: string): Promise<number> {
  const form = new FormData();
  form.append('directory', new File([`<h1>${domain}</h1>`], 'index.html', { type: 'text/html' }));
  const response = await fetch(`${service.origin}/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await token(service, 'github|1', 'deploy')}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return Date.now();
}

describe('webhooks to two receivers, one of which never answers', () => {
  it('delivers each event to the answering receiver promptly while the other hangs', async () => {
    for (const domain of ['first.example', 'second.example', 'third.example']) {
      const deployed = await deploy(domain);
      await waitFor(() => answered.some((received) => received.domain === domain), `${domain}'s event at the answering receiver`, 30_000, [service]);
      const delay = answered.find((received) => received.domain === domain)!.at - deployed;
      expect(delay, `${domain}'s event took ${delay} ms`).toBeLessThan(promptMs);
      // Apart by more than the queues' one-second batching, so that each event travels in its own batch.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
    expect(answered.map((received) => received.domain)).toEqual(['first.example', 'second.example', 'third.example']);
    // The other receiver was sent the first event and holds it unanswered all along.
    expect(hanging.length).toBeGreaterThan(0);
    expect(hanging.every((response) => !response.writableEnded)).toBe(true);
  });
});

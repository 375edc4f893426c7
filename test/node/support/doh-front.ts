import { Resolver } from 'node:dns/promises';
import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A DNS-over-HTTPS JSON front (the API Cloudflare's and Google's resolvers answer) for a real DNS
 * server on loopback: what the Worker asks at DNS_RESOLVER_URL, answered by asking that server
 * with node:dns. TXT only, since that is all the service asks; like Cloudflare's, it writes each
 * record as quoted character-strings and refuses a request without `accept: application/dns-json`.
 */
export interface DohFront {
  /** Its DNS_RESOLVER_URL. */
  url: string;
  /**
   * `garbage` answers 200 with an HTML page, as a captive portal or a misrouted URL would; `huge`
   * a 60 MB answer (one TXT record), sent as fast as it is read; `stalled` the head of an answer
   * and the first bytes of its body, then nothing (the connection stays open).
   */
  mode: 'dns' | 'garbage' | 'huge' | 'stalled';
  /** Bytes of body written to the last `huge` answer before its connection closed (all of them: 60 MiB). */
  hugeBytesSent: number;
  /** Stops listening, so the resolver is down: a connection is refused. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

/** A character-string as a zone file writes it. */
const quoted = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** DNS response codes a resolver answers with, by what node:dns reports. */
const noError = 0;
const serverFailure = 2;
const noSuchName = 3;

async function answer(resolver: Resolver, name: string): Promise<object> {
  const question = [{ name: `${name}.`, type: 16 }];
  try {
    const records = await resolver.resolveTxt(name);
    const data = records.map((strings) => ({ name: `${name}.`, type: 16, TTL: 0, data: strings.map(quoted).join(' ') }));
    return { Status: noError, Question: question, Answer: data };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA') return { Status: noError, Question: question };
    return { Status: code === 'ENOTFOUND' ? noSuchName : serverFailure, Question: question };
  }
}

export async function startDohFront(dnsPort: number): Promise<DohFront> {
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  let server: Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((request, response) => {
        const url = new URL(request.url ?? '/', 'http://resolver');
        const name = url.searchParams.get('name');
        if (front.mode === 'garbage') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in to the network</html>');
        if (front.mode === 'huge') return sendHuge(response);
        if (front.mode === 'stalled') return void response.writeHead(200, { 'content-type': 'application/dns-json' }).write('{"Status":0,');
        if (request.headers.accept !== 'application/dns-json' || !name || url.searchParams.get('type') !== 'TXT') {
          return void response.writeHead(400, { 'content-type': 'text/plain' }).end('Ask for ?name=…&type=TXT with accept: application/dns-json.');
        }
        answer(resolver, name).then((body) => response.writeHead(200, { 'content-type': 'application/dns-json' }).end(JSON.stringify(body)));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  /** 60 MiB of one TXT record, written as the reader takes it (backpressure), until it is all sent or the reader goes away. */
  const sendHuge = (response: ServerResponse) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const total = 60 * 1024 * 1024;
    front.hugeBytesSent = 0;
    response.writeHead(200, { 'content-type': 'application/dns-json' });
    response.write('{"Status":0,"Answer":[{"type":16,"data":"');
    const more = () => {
      while (front.hugeBytesSent < total && !response.destroyed) {
        front.hugeBytesSent += chunk.byteLength;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      if (!response.destroyed) response.end('"}]}');
    };
    more();
  };
  await listen();
  const front: DohFront = {
    hugeBytesSent: 0,
    url: `http://127.0.0.1:${port}/dns-query`,
    mode: 'dns',
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
    restart: listen,
  };
  return front;
}

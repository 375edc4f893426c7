import { startRelayServer } from './relay-server.ts';

/** A TCP relay in front of a port that counts the bytes clients send through it. */
export interface CountingRelay {
  origin: string;
  /** Bytes received from clients so far. */
  bytesFromClients(): number;
  /** The request lines (`POST /v2/… HTTP/1.1`) seen so far, in order. */
  requestLines(): string[];
  close(): Promise<void>;
}

export interface RelayOptions {
  /** Cuts the first connection that carries more than this many bytes from its client, as a network failure would. */
  dropOnceAfterBytes?: number;
}

export function startCountingRelay(targetPort: number, options: RelayOptions = {}): Promise<CountingRelay> {
  let bytes = 0;
  let dropped = false;
  const requests: string[] = [];
  const listening = startRelayServer(targetPort, (client, upstream) => {
    let connectionBytes = 0;
    client.on('data', (chunk: Buffer) => {
      bytes += chunk.byteLength;
      // Bodies here are files of random text, which never hold a request line.
      for (const line of chunk.toString('latin1').matchAll(/(?:^|\r\n)((?:GET|HEAD|POST|PUT|PATCH|DELETE) \S+ HTTP\/1\.1)\r\n/g)) requests.push(line[1]!);
      connectionBytes += chunk.byteLength;
      if (options.dropOnceAfterBytes === undefined || dropped || connectionBytes <= options.dropOnceAfterBytes) return;
      dropped = true;
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    // A server that answers early and closes is reset by the bytes still arriving: pass its
    // answer on and close gently, as the client would have seen it without the relay.
    upstream.on('error', () => client.end());
  });
  return listening.then((server) => ({
    ...server,
    bytesFromClients: () => bytes,
    requestLines: () => [...requests],
  }));
}

import { connect, createServer, type Socket } from 'node:net';

/** A relay's server: where clients reach it, and how to stop it. */
export interface RelayServer {
  origin: string;
  /** Stops listening and ends every connection still open. */
  close(): Promise<void>;
}

/** A TCP server on a free loopback port that connects each client to `targetPort` and hands both sockets to `relay`. */
export function startRelayServer(targetPort: number, relay: (client: Socket, upstream: Socket) => void): Promise<RelayServer> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    relay(client, upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

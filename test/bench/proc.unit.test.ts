/**
 * bench:serve counts a server as started only once one of its own processes listens on the port it
 * was given (bench/serve/servers.mjs, reading bench/proc.mjs's listeningPorts): a port answered by another
 * bench's server must not pass.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ES module of the benches, without type declarations.
import { listeningPorts } from '../../bench/proc.mjs';

const portsOf = listeningPorts as (pids: number[]) => number[];

describe("bench:serve's check that a port is its own server's", () => {
  it('finds the port a process listens on while it listens, and only then', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    expect(portsOf([process.pid])).toContain(port);
    expect(portsOf([])).not.toContain(port);
    server.close();
    await once(server, 'close');
    expect(portsOf([process.pid])).not.toContain(port);
  });
});

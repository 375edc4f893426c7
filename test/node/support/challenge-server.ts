import { dirname, join } from 'node:path';
import { type TestProcess, startProcess, waitFor } from './processes';
import { freePort } from './service';

/** Debian's `pebble-challtestsrv`, or the one beside PEBBLE_PATH's `pebble`. */
const binary = process.env.PEBBLE_PATH ? join(dirname(process.env.PEBBLE_PATH), 'pebble-challtestsrv') : 'pebble-challtestsrv';

/** pebble-challtestsrv's mock DNS server on loopback, with its management API. */
export interface ChallengeServer extends TestProcess {
  dnsPort: number;
  /** POSTs a JSON body to the management API (`/set-txt`, `/clear-txt`, `/add-a`…); fails unless it answers 200. */
  manage(path: string, body: object): Promise<void>;
}

/** Starts it answering DNS only (no HTTP-01 or TLS-ALPN-01 listeners), every A query with 127.0.0.1, until its management API answers. */
export async function startChallengeServer(): Promise<ChallengeServer> {
  const [dnsPort, managementPort] = await Promise.all([freePort(), freePort()]);
  const server = startProcess('pebble-challtestsrv', binary, [
    '-dns01', `127.0.0.1:${dnsPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '',
    '-management', `127.0.0.1:${managementPort}`, '-defaultIPv4', '127.0.0.1', '-defaultIPv6', '',
  ]);
  const management = `http://127.0.0.1:${managementPort}`;
  try {
    await waitFor(() => fetch(`${management}/`).then(() => true, () => false), 'pebble-challtestsrv', 20_000, [server]);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    ...server,
    dnsPort,
    async manage(path, body) {
      const response = await fetch(`${management}${path}`, { method: 'POST', body: JSON.stringify(body) });
      if (response.status !== 200) throw new Error(`pebble-challtestsrv ${path} answered ${response.status}: ${await response.text()}`);
    },
  };
}

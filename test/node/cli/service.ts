import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';

const repo = new URL('../../..', import.meta.url).pathname;

/** The real service under `wrangler dev` (through `npm start`'s script), with its own state and secret. */
export interface Service {
  origin: string;
  port: number;
  secret: string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export async function startService(): Promise<Service> {
  const persistDir = await mkdtemp(join(tmpdir(), 'sitehost-cli-'));
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const secret = randomBytes(32).toString('base64url');
  let output = '';
  // Its own process group, so that stopping it stops wrangler and workerd too.
  const server: ChildProcess = spawn(
    process.execPath,
    ['scripts/start.mjs', '--ip', '127.0.0.1', '--inspector-port', String(inspectorPort)],
    {
      cwd: repo,
      env: { ...process.env, PORT: String(port), SITEHOST_PERSIST_DIR: persistDir, AUTH_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  for (const stream of [server.stdout!, server.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (server.pid && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      process.kill(-server.pid, 'SIGTERM');
      await exited;
    }
    await rm(persistDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  while (!output.includes('Ready on')) {
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The service did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin: `http://127.0.0.1:${port}`, port, secret, stop };
}

/** A self-issued token, as `npm run token` signs it. */
export function token(service: Service, user: string, scope = 'deploy', secret = service.secret): Promise<string> {
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user)
    .setIssuer('sitehost')
    .setAudience('sitehost')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/**
 * GETs a path of a hosted site the way a browser does at `http://<domain>.localhost:<port>/`:
 * through node:http with that Host header, since fetch does not let a caller set Host.
 */
export function getFromSite(service: Service, domain: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port: service.port, path, headers: { host: `${domain}.localhost:${service.port}` } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { inject } from 'vitest';
import { signToken } from '../../../scripts/sign-token.mjs';
import { undocumentedAnswer } from '../../support/openapi-document';
import { copyMigratedState } from './migrated-state';
import { type TestProcess, startProcess, waitFor } from './processes';
import { workerBundle } from './worker-bundle';

const localRuntime = new URL('./local-runtime.mjs', import.meta.url).pathname;

/** A running service the tests can reach: where it listens, its secret and what it printed. */
export interface RunningService {
  origin: string;
  port: number;
  /** Its AUTH_SECRET, which signs self-issued tokens. */
  secret: string;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * The real service, with its own state and secret: the Worker's bundle in Miniflare (./local-runtime.mjs),
 * or `npm start`'s script (wrangler dev) when asked.
 */
export interface Service extends TestProcess, RunningService {
  /** Its local state (`--persist-to`), deleted by stop() unless it was given. */
  persistDir: string;
  /** Stops it, and then fails if it answered the API with a status schema/openapi.json does not list (undocumentedAnswers). */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /**
   * `npm start`: its script, which applies the migrations and runs wrangler dev, as a user starts the
   * service; otherwise the Worker bundled once for the run (./worker-bundle.ts) in Miniflare, the same
   * runtime and local storage at a third of the start's CPU and half a request's.
   */
  via?: 'npm start';
  /** Worker variables (`wrangler dev --var NAME:value` under npm start). */
  vars?: Record<string, string>;
  /** More environment for the processes and workerd (NODE_EXTRA_CA_CERTS, say). */
  env?: Record<string, string>;
  /** Its port, for when something must know it before the service starts; a free one otherwise. */
  port?: number;
  /**
   * `migrated` (the default): a copy of the state test/node/support/migrated-state.ts made, so
   * the script finds nothing to migrate; `empty`: nothing, as on a new machine.
   */
  state?: 'migrated' | 'empty';
  /** Local state to start on (a service run on it before, say), left in place by stop(); a new temporary one otherwise. */
  persistDir?: string;
  /** The folder of the migrated state to copy (./migrated-state.ts); the provided one otherwise (it can only be injected in a test file). */
  migratedState?: string;
  /** The folder of the Worker's bundle (./worker-bundle.ts); the provided one otherwise, as migratedState. */
  workerBundle?: string;
  /** A file that gets a copy of everything it prints, for processes other than the one that started it. */
  logFile?: string;
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

/**
 * Runs the service on loopback with a temporary state (migrated unless `state: 'empty'`) and a
 * random AUTH_SECRET and DOMAIN_PROOF_SECRET (under npm start: SITEHOST_PERSIST_DIR and the
 * secrets from the environment, so the repository's .wrangler/state and .dev.vars are left alone,
 * and a free inspector port, as other services may run beside it), until it is ready.
 * A port found free may be taken by another process before the service binds it: the service
 * then starts again on other ports, unless its port was given.
 */
export async function startService(options: ServiceOptions = {}): Promise<Service> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(options);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('Address already in use');
      if (!portTaken || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startServiceOnce(options: ServiceOptions): Promise<Service> {
  const persistDir = options.persistDir ?? (await mkdtemp(join(tmpdir(), 'sitehost-service-')));
  if (options.persistDir === undefined && options.state !== 'empty') await copyMigratedState(persistDir, options.migratedState);
  const port = options.port ?? (await freePort());
  const secret = randomBytes(32).toString('base64url');
  const secrets = { DOMAIN_PROOF_SECRET: randomBytes(32).toString('base64url'), AUTH_SECRET: secret };
  const varFlags = Object.entries(options.vars ?? {}).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  const server =
    options.via === 'npm start'
      ? startProcess(
          'npm start',
          process.execPath,
          ['scripts/start.mjs', '--ip', '127.0.0.1', '--inspector-port', String(await freePort()), ...varFlags],
          { ...options.env, ...secrets, PORT: String(port), SITEHOST_PERSIST_DIR: persistDir },
          options.logFile,
        )
      : startProcess(
          'the Worker in Miniflare',
          process.execPath,
          [localRuntime, await workerBundle(options.workerBundle), persistDir, String(port)],
          { ...options.env, SITEHOST_VARS: JSON.stringify({ ...secrets, ...options.vars }) },
          options.logFile,
        );
  const service: Service = {
    ...server,
    origin: `http://127.0.0.1:${port}`,
    port,
    secret,
    persistDir,
    async stop() {
      await server.stop();
      if (options.persistDir === undefined) await rm(persistDir, { recursive: true, force: true });
      const undocumented = undocumentedAnswers(server.output());
      if (undocumented.length > 0) throw new Error(`The API answered statuses schema/openapi.json does not list:\n${undocumented.join('\n')}`);
    },
  };
  try {
    await waitFor(() => server.output().includes('Ready on'), 'the service was ready', 90_000, [server]);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}

/**
 * Every API answer the service logged (`[wrangler:info] PUT /v2/sites/a.example 200 OK (12ms)` under
 * wrangler dev, `[mf:info] …` under Miniflare alone) for
 * a documented operation whose status schema/openapi.json does not list for it. The line has no
 * Host: /v1/ and /v2/ paths are taken as the API's, which no black-box test asks a hosted site for.
 */
export function undocumentedAnswers(output: string): string[] {
  const answers = stripVTControlCharacters(output).matchAll(/^\[(?:wrangler|mf):info\] ([A-Z]+) (\/v[12]\/[^\s?]*)\S* (\d{3}) /gm);
  const undocumented = [...answers].map(([, method, path, status]) => undocumentedAnswer(method!, path!, Number(status)));
  return [...new Set(undocumented.filter((answer) => answer !== undefined))];
}

/**
 * The service the node project's global set-up started with wrangler.toml's settings
 * (./shared-service.ts), shared by every test file that needs no settings of its own: each such
 * file would otherwise start, and wait for, a service of its own. Its files use their own users
 * and domains. Waits until it is ready.
 */
export async function sharedService(): Promise<RunningService> {
  const folder = inject('sharedService');
  const ready = join(folder, 'service.json');
  const failed = join(folder, 'failed');
  const deadline = Date.now() + 120_000;
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(`The shared service did not start:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error('Timed out waiting for the shared service');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { origin, port, secret, logFile } = JSON.parse(readFileSync(ready, 'utf8')) as { origin: string; port: number; secret: string; logFile: string };
  return { origin, port, secret, output: () => readFileSync(logFile, 'utf8') };
}

/**
 * Runs the Worker's scheduled handler for `cron` now, as its Cron Trigger would: on Miniflare's
 * trigger path, which wrangler dev serves too (its docs' /cdn-cgi/handler/scheduled is the old name).
 */
export function runCron(service: RunningService, cron: string): Promise<Response> {
  return fetch(`${service.origin}/cdn-cgi/local/scheduled?cron=${encodeURIComponent(cron)}`);
}

/** A self-issued token, as `npm run token` signs it. */
export function token(service: RunningService, user: string, scope = 'deploy', secret = service.secret): Promise<string> {
  return signToken({ user, scope, secret });
}

/** What a hosted site answered: status, fields and body. */
export interface SiteResponse<Body = string> {
  status: number;
  headers: IncomingHttpHeaders;
  body: Body;
}

/**
 * GETs a path of a hosted site the way a browser does at `http://<domain>.localhost:<port>/`:
 * through node:http with that Host header, since fetch does not let a caller set Host (nor
 * send a path with `//` or dot segments as written).
 */
export function getBytesFromSite(service: RunningService, domain: string, path: string, headers: Record<string, string> = {}): Promise<SiteResponse<Buffer>> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port: service.port, path, headers: { host: `${domain}.localhost:${service.port}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        // A connection cut mid-body (a service that was killed, say).
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** `getBytesFromSite`, the body as UTF-8 text. */
export async function siteAnswer(service: RunningService, domain: string, path: string, headers: Record<string, string> = {}): Promise<SiteResponse> {
  const response = await getBytesFromSite(service, domain, path, headers);
  return { ...response, body: response.body.toString('utf8') };
}

/** What a visitor sees of a page: its status and text, to compare whole. */
export async function getFromSite(service: RunningService, domain: string, path: string): Promise<{ status: number; body: string }> {
  const { status, body } = await siteAnswer(service, domain, path);
  return { status, body };
}

/**
 * A form encoded whole, to send with its headers in one write: a deploy refused before its
 * body is read is answered at once and its connection closed, which a body still streaming in
 * would meet as EPIPE (test/node/deploy-input.test.ts sends such bodies by hand).
 */
export async function wholeForm(form: FormData): Promise<{ headers: Record<string, string>; body: ArrayBuffer }> {
  const encoded = new Response(form);
  return { headers: { 'content-type': encoded.headers.get('content-type')! }, body: await encoded.arrayBuffer() };
}

import { expect } from 'vitest';
import { authorized, call, deploy } from '../support/client';
import { answerWithinMs } from './settings';

/** A response read to its end: a body that never ends is a hang as much as a missing answer. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

class NoAnswer extends Error {}

/** Sends a request and reads the whole answer, failing when it takes longer than `answerWithinMs`. */
export async function answered(send: () => Promise<Response>, what: string): Promise<Answer> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(`${what}: no whole answer within ${answerWithinMs} ms`)), answerWithinMs);
  });
  const read = (async () => {
    const response = await send();
    return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) };
  })();
  try {
    return await Promise.race([read, expiry]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The API's contract for any answer: never a 5xx, and a refusal is a problem whose `status`
 * is the HTTP status (an answer to HEAD has the problem's headers only).
 */
export function expectApiAnswer(answer: Answer, what: string, method = 'GET'): void {
  const text = new TextDecoder().decode(answer.body.slice(0, 2000));
  expect(answer.status, `${what} → ${text}`).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(answer.headers.get('content-type'), `${what} → ${answer.status} ${text}`).toBe('application/problem+json');
  if (method !== 'HEAD') expect(JSON.parse(new TextDecoder().decode(answer.body)), what).toMatchObject({ status: answer.status });
}

/** Header values outside visible ASCII (CR, LF, NUL, Unicode) are not what a client sends: such cases are skipped. */
export const sendableHeaderValue = (value: string) => /^[\t\x20-\x7e]*$/.test(value);

export const isSuccess = (answer: Answer) => answer.status >= 200 && answer.status < 300;

const bytes = (text: string) => new TextEncoder().encode(text);

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/**
 * A deployed site the fuzzed requests aim at: after a refused request it must still be served
 * byte-identical with its configuration and metadata; after an accepted one it is restored.
 */
export class BaselineSite {
  readonly files: Record<string, Uint8Array> = {
    'index.html': bytes('<!doctype html><h1>Baseline</h1>'),
    'css/a.css': bytes('body { color: teal }'),
    'data.bin': Uint8Array.from({ length: 256 }, (_, i) => i),
  };
  /** Served at these request paths. */
  readonly served: Record<string, string> = { '/': 'index.html', '/css/a.css': 'css/a.css', '/data.bin': 'data.bin' };
  readonly configuration = { headers: [{ fields: { 'x-baseline': 'yes' } }] };
  readonly metadata = { team: 'fuzz' };

  constructor(readonly domain: string) {}

  get siteUrl(): string {
    return `http://${this.domain}.localhost`;
  }

  /** The live deployment's id, once deployed: a manifest patch's base. */
  liveDeploymentId = '';

  async deploy(): Promise<void> {
    const response = await deploy(this.domain, this.files, this.configuration);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    this.liveDeploymentId = (JSON.parse(text) as { deploymentId: string }).deploymentId;
    const info = await authorized(`/v2/sites/${this.domain}/info`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: this.metadata }),
    });
    expect(info.status, await info.text()).toBe(200);
  }

  /** Whether a fuzzed answer changed the site: a 2xx may have; a refusal must not. */
  async settle(answer: Answer, what: string): Promise<void> {
    if (isSuccess(answer)) await this.deploy();
    else await this.expectIntact(what);
  }

  async expectIntact(what: string): Promise<void> {
    for (const [path, file] of Object.entries(this.served)) {
      const response = await answered(() => call(`${this.siteUrl}${path}`, { redirect: 'manual' }), `GET ${path}`);
      expect(response.status, `${what}, then GET ${path}`).toBe(200);
      expect(response.headers.get('x-baseline'), `${what}, then GET ${path}`).toBe('yes');
      expect(sameBytes(response.body, this.files[file]!), `${what}, then GET ${path}: not the baseline bytes`).toBe(true);
    }
    const configuration = await authorized(`/v2/sites/${this.domain}/configuration`, {}, { scope: 'deploy' });
    expect(configuration.status, what).toBe(200);
    expect(((await configuration.json()) as { configuration: unknown }).configuration, `${what}, then GET configuration`).toEqual(this.configuration);
    const info = await authorized(`/v2/sites/${this.domain}/info`, {}, { scope: 'deploy' });
    expect(info.status, what).toBe(200);
    expect(((await info.json()) as { metadata: unknown }).metadata, `${what}, then GET info`).toEqual(this.metadata);
  }
}

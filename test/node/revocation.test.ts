import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedApiToken } from '../../src/common/api-types';
import { type Service, startService, token } from './support/service';

/**
 * Revocation that holds (docs/design.md), black-box through `npm start`. The service is one
 * location, which remembers a credential's check for API_TOKEN_CHECK_SECONDS; a sign-out made at
 * another location reaches D1 and not this location's memory. That other location is emulated by
 * writing the sign-out into the service's local D1 database from outside, as its request would.
 */

/** Long enough for a few requests on a loaded machine to find the check remembered; short enough to wait out for a stream's end. */
const checkSeconds = 10;

let service: Service;

beforeAll(async () => {
  service = await startService({ vars: { API_TOKEN_CHECK_SECONDS: String(checkSeconds) } });
});

afterAll(async () => {
  await service?.stop();
});

function send(bearer: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${service.origin}${path}`, { ...init, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...init.headers } });
}

/** Runs `use` on the service's local D1 database, opened from outside the service. */
function inDatabase<T>(use: (database: DatabaseSync) => T): T {
  const folder = join(service.persistDir, 'v3', 'd1', 'miniflare-D1DatabaseObject');
  const file = readdirSync(folder).find((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite');
  const database = new DatabaseSync(join(folder, file!));
  try {
    return use(database);
  } finally {
    database.close();
  }
}

/** Another location's sign-out everywhere of `userId`: a row in the service's D1, which this location's memory does not see. */
function signOutElsewhere(userId: string): void {
  // The next second: every JWT issued up to now is before the line.
  inDatabase((database) => database.prepare('INSERT INTO sign_outs (user_id, before) VALUES (?, ?)').run(userId, Math.floor(Date.now() / 1000) + 1));
}

/** True once `response`'s stream ends, false if it is still open after `ms` (a bound for a failing test, not a wait). */
async function endsWithin(response: Response, ms: number): Promise<boolean> {
  const reader = response.body!.getReader();
  const ended = (async () => {
    while (!(await reader.read()).done);
    return true;
  })();
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([ended, open]);
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

describe('revocation that holds, through npm start', () => {
  it('refuses a JWT that mints right after its user signed out everywhere elsewhere, though this location still remembers it as good', async () => {
    const user = 'github|blackbox-revoked-minter';
    const jwt = await token(service, user);
    expect((await send(jwt, '/v2/whoami')).status).toBe(200);
    signOutElsewhere(user);
    const minted = await send(jwt, '/v2/tokens', { method: 'POST', body: JSON.stringify({ name: 'after the sign-out', scopes: ['deploy'] }) });
    expect(minted.status).toBe(401);
    expect(((await minted.json()) as { detail: string }).detail).toContain('signed out everywhere');
    // The location still held the JWT as good when it minted: reads pass until API_TOKEN_CHECK_SECONDS run out.
    expect((await send(jwt, '/v2/whoami')).status).toBe(200);
    // And nothing was made.
    expect(inDatabase((database) => database.prepare('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?').get(user))).toEqual({ n: 0 });
  });

  it('ends an open event stream within API_TOKEN_CHECK_SECONDS of its token being revoked, though nothing is sent on it', async () => {
    const user = 'github|blackbox-stream-reader';
    const jwt = await token(service, user);
    const made = await send(jwt, '/v2/tokens', { method: 'POST', body: JSON.stringify({ name: 'stream reader', scopes: ['deploy'] }) });
    expect(made.status).toBe(201);
    const reader = (await made.json()) as CreatedApiToken;
    const stream = await send(reader.token, '/v2/user/events');
    expect(stream.status).toBe(200);
    expect((await send(jwt, `/v2/tokens/${reader.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await endsWithin(stream, 4 * checkSeconds * 1000)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { authorized, call, problemOf } from '../support/client';

const asReader = (path: string, init: RequestInit = {}) => authorized(path, init, { scope: 'global_read' });

describe('GET /v2/events access and input', () => {
  it('answers 401 without a token', async () => {
    const response = await call('/v2/events');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="sitehost", error="invalid_token"');
    expect(await problemOf(response)).toMatchObject({ status: 401 });
  });

  it('answers 403 to a token without global_read, for SSE and WebSocket alike', async () => {
    for (const headers of [{}, { upgrade: 'websocket' }] as Record<string, string>[]) {
      const response = await authorized('/v2/events', { headers }, { scope: 'deploy' });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="sitehost", error="insufficient_scope", scope="global_read"');
      expect(await problemOf(response)).toMatchObject({ type: '/problems/insufficient-scope' });
    }
  });

  it.each([
    ['?since=abc', {}],
    ['?since=-1', {}],
    ['?since=1.5', {}],
    ['?since=', {}],
    ['?since=99999999999999999999', {}],
    ['', { 'last-event-id': 'x1' }],
  ])('answers 400 to a position that is not an event id (%s %o)', async (query, headers) => {
    const response = await asReader(`/v2/events${query}`, { headers });
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-request' });
  });

  it('answers 410 to a position the log never issued', async () => {
    const response = await asReader('/v2/events?since=999999999999');
    expect(response.status).toBe(410);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/gone' });
  });

  it('answers 405 with Allow to other methods', async () => {
    const response = await asReader('/v2/events', { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

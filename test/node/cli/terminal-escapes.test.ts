import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, sharedService, token } from '../support/service';
import { runCli } from './run';

/**
 * What `sitehost` prints of another person's text (metadata, problem details) never acts on the
 * terminal: ESC and BEL would retitle and clear it, a CR overwrite the line. Without --json every
 * control character but line feeds and tabs is shown escaped; --json keeps the value exact.
 */
let service: RunningService;
let work: string;
let owner: string;
let reader: string;

const as = (userToken: string) => ({ SITEHOST_ORIGIN: service.origin, SITEHOST_TOKEN: userToken, XDG_CONFIG_HOME: join(work, 'no-login'), XDG_CACHE_HOME: join(work, 'cache') });
/** Retitles the terminal, rings it, clears the screen, then overwrites the line from its start. */
const hostile = '\u001b]0;owned\u0007\u001b[2J\rall fine \u009b2J';
/** Any control character a terminal acts on (all but LF and tab). */
const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

async function api(path: string, init: RequestInit & { as: string }): Promise<Response> {
  return fetch(`${service.origin}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${init.as}` } });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'sitehost-escapes-'));
  service = await sharedService();
  [owner, reader] = await Promise.all([token(service, 'github|writer'), token(service, 'github|reader', 'deploy global_read')]);
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('text from the service on a terminal', () => {
  it("shows another user's metadata with its control characters escaped, and --json exact", async () => {
    const form = new FormData();
    form.append('directory', new Blob(['<h1>hi</h1>'], { type: 'text/html' }), 'index.html');
    expect((await api('/v2/sites/escapes.test', { method: 'PUT', body: form, as: owner })).status).toBe(200);
    const written = await api('/v2/sites/escapes.test/info', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { note: hostile } }),
      as: owner,
    });
    expect(written.status).toBe(200);

    const shown = await runCli(['info', 'escapes.test'], { env: as(reader) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(acting);
    expect(shown.stdout).toContain('note=\\u001b]0;owned\\u0007\\u001b[2J\\u000dall fine \\u009b2J');

    const json = await runCli(['info', 'escapes.test', '--json'], { env: as(reader) });
    expect(json.stdout).not.toMatch(acting);
    expect(JSON.parse(json.stdout).metadata).toEqual({ note: hostile });
  });

  it('shows a problem detail that quotes such text escaped', async () => {
    // The service quotes the deployment id asked for in its 404 (JSON.stringify leaves C1 controls as they are).
    const refused = await runCli(['rollback', 'escapes.test', `x${hostile}`, '--yes'], { env: as(reader) });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('keeps no deployment');
    expect(refused.stderr).not.toMatch(acting);
    expect(refused.stderr).toContain('\\u009b2J');
  });
});

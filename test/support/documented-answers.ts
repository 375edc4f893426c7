import { env } from 'cloudflare:workers';
import { afterAll, expect } from 'vitest';
import { settingsOf } from '../../src/platform/settings';
import { undocumentedAnswer } from './openapi-document';

/**
 * Every answer the workers tests receive from the API (through test/support/client.ts) is checked
 * against schema/openapi.json: a documented operation that answers a status the document does not
 * list fails the test file, naming the operation, the status and the test that saw it. So the
 * document keeps up with what every test, not only test/api/openapi.test.ts, sees the API answer.
 */

/** `METHOD template → status`, with the first test that saw it. */
const undocumented = new Map<string, string>();

/** Notes the answer to a request a test sent to the Worker. */
export function recordAnswer(request: Request, response: Response): void {
  const url = new URL(request.url);
  if (!settingsOf(env).apiHostnames.includes(url.hostname)) return;
  const missing = undocumentedAnswer(request.method, url.pathname, response.status);
  if (missing && !undocumented.has(missing)) undocumented.set(missing, expect.getState().currentTestName ?? 'a hook');
}

// vitest.config.ts lists this module in setupFiles: the check runs after each test file.
afterAll(() => {
  const answers = [...undocumented].map(([answer, test]) => `${answer} (seen in "${test}")`);
  expect(answers, 'statuses the API answered that schema/openapi.json does not list for the operation').toEqual([]);
});

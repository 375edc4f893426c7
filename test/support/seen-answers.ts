import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { settingsOf } from '../../src/platform/settings';
import { undocumentedAnswer } from './openapi-document';

/**
 * The API's answers the workers tests saw that schema/openapi.json does not list, as
 * `METHOD template → status` with the first test that saw it. A module of its own, not the setup
 * file's: files share a runtime (vitest.config.ts, `isolate: false`), which runs the setup file
 * again for each file but keeps this module, so what test/support/client.ts records is what
 * documented-answers.ts checks.
 */
export const undocumentedAnswers = new Map<string, string>();

/** Notes the answer to a request a test sent to the Worker. */
export function recordAnswer(request: Request, response: Response): void {
  const url = new URL(request.url);
  if (!settingsOf(env).apiHostnames.includes(url.hostname)) return;
  const missing = undocumentedAnswer(request.method, url.pathname, response.status);
  if (missing && !undocumentedAnswers.has(missing)) undocumentedAnswers.set(missing, expect.getState().currentTestName ?? 'a hook');
}

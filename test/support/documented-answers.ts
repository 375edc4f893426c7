import { afterAll, expect } from 'vitest';
import { undocumentedAnswers } from './seen-answers';

/**
 * Every answer the workers tests receive from the API (through test/support/client.ts) is checked
 * against schema/openapi.json: a documented operation that answers a status the document does not
 * list fails the test file, naming the operation, the status and the test that saw it. So the
 * document keeps up with what every test, not only test/api/openapi.test.ts, sees the API answer.
 */

// vitest.config.ts lists this module in setupFiles: the check runs after each test file, and
// starts the next file that shares the runtime with nothing seen.
afterAll(() => {
  const answers = [...undocumentedAnswers].map(([answer, test]) => `${answer} (seen in "${test}")`);
  undocumentedAnswers.clear();
  expect(answers, 'statuses the API answered that schema/openapi.json does not list for the operation').toEqual([]);
});

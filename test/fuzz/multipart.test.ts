import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import { call, token } from '../support/client';
import { multipartCase } from './arbitraries/multipart';
import { fuzzParameters, fuzzTimeout } from './settings';
import { BaselineSite, answered, expectApiAnswer, sendableHeaderValue } from './support';

const site = new BaselineSite('multipart.fuzz.example');
const runs = 60;

describe('fuzzed deploy bodies', () => {
  beforeAll(() => site.deploy());

  it('never a 5xx or a hang; a refusal is a problem and leaves the site served as it was', { timeout: fuzzTimeout(runs) }, async () => {
    const bearer = `Bearer ${await token()}`;
    await fc.assert(
      fc.asyncProperty(multipartCase, async ({ contentType, body }) => {
        fc.pre(sendableHeaderValue(contentType));
        const what = `PUT /v2/sites/${site.domain} (${contentType}, ${body.length} bytes)`;
        const answer = await answered(
          () => call(`/v2/sites/${site.domain}`, { method: 'PUT', headers: { 'content-type': contentType, authorization: bearer }, body }),
          what,
        );
        expectApiAnswer(answer, what);
        await site.settle(answer, what);
      }),
      fuzzParameters(runs),
    );
  });
});

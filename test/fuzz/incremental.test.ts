import fc from 'fast-check';
import { beforeAll, describe, it } from 'vitest';
import { call, token } from '../support/client';
import { incrementalBody, incrementalCase } from './arbitraries/incremental';
import { fuzzParameters, fuzzTimeout } from './settings';
import { BaselineSite, answered, expectApiAnswer, sendableHeaderValue } from './support';

const site = new BaselineSite('incremental.fuzz.example');
const runs = 60;

describe('fuzzed one-request incremental deploys', () => {
  beforeAll(() => site.deploy());

  it('never a 5xx or a hang; a refusal is a problem and leaves the site served as it was', { timeout: fuzzTimeout(runs) }, async () => {
    const bearer = `Bearer ${await token()}`;
    await fc.assert(
      fc.asyncProperty(incrementalCase, async (fuzzed) => {
        fc.pre(sendableHeaderValue(fuzzed.contentType));
        const body = await incrementalBody(fuzzed, site.liveDeploymentId);
        const what = `POST /v2/sites/${site.domain}/deployments (${fuzzed.contentType}, ${body.length} bytes)`;
        const answer = await answered(
          () => call(`/v2/sites/${site.domain}/deployments`, { method: 'POST', headers: { 'content-type': fuzzed.contentType, authorization: bearer }, body }),
          what,
        );
        expectApiAnswer(answer, what);
        await site.settle(answer, what);
      }),
      fuzzParameters(runs, 7),
    );
  });
});

import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import type { SiteCoordinator } from '../../src/coordinator/coordinator';
import worker from '../../src/index';
import { token } from '../support/client';
import { CallCounter, metered } from '../support/metered';

it('deploys 20,000 small files with at most 1,000 platform calls', async () => {
  const domain = 'many-files.example';
  const counter = new CallCounter();
  const countedEnv = metered(env, counter);
  // The coordinator does its part of the deploy with its own bindings: count those too.
  const stub = env.SITES.get(env.SITES.idFromName(domain));
  await runInDurableObject(stub, (instance: SiteCoordinator) => {
    (instance as unknown as { env: typeof env }).env = metered(env, counter);
  });

  const form = new FormData();
  for (let i = 0; i < 20_000; i++) {
    form.append('directory', new File([`<p>page ${i}</p>`], `site/section-${i % 50}/page-${i}.html`));
  }
  const request = new Request(`http://localhost/v2/sites/${domain}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${await token()}` },
    body: form,
  });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, countedEnv, ctx);
  await waitOnExecutionContext(ctx);
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ hasNewFiles: true, isNewDomain: true });

  console.log(`platform calls for 20,000 files: ${counter.total}`, counter.byKind());
  expect(counter.calls).toContain('DO.deploy');
  // The coordinator writes the deploy's event into the event log itself.
  expect(counter.calls).toContain('DO.append');
  expect(counter.calls).toContain('D1.batch');
  expect(counter.total).toBeLessThanOrEqual(1000);
});

import { describe, expect, it } from 'vitest';
import { authorized, deploy, problemOf } from '../support/client';
import { deployed, site } from '../serving/support';

const body = (method: string, text: string, type = 'application/json'): RequestInit => ({
  method,
  headers: { 'content-type': type },
  body: text,
});
const mergePatch = (text: string) => body('PATCH', text, 'application/merge-patch+json');

/** What users see of a site: its home page, its info and its configuration, as served. */
async function observed(domain: string): Promise<string[]> {
  const responses = [await site(domain, '/'), await authorized(`/v2/sites/${domain}/info`), await authorized(`/v2/sites/${domain}/configuration`)];
  expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
  return Promise.all(responses.map((response) => response.text()));
}

// Issue: these requests answered 500 yet were committed, and the site then answered 500
// (DataCloneError) to every request until its coordinator restarted.
describe('member names that are special in JavaScript (__proto__, constructor)', () => {
  it.each([
    ['PATCH info, __proto__ as an object', 'info', mergePatch('{"metadata":{"__proto__":{"x":"1"}}}'), '/metadata/__proto__'],
    ['PUT info, __proto__ as an object', 'info', body('PUT', '{"metadata":{"__proto__":{"x":"1"}}}'), '/metadata/__proto__'],
    ['PATCH info, constructor as an object', 'info', mergePatch('{"metadata":{"constructor":{"prototype":{"x":"1"}}}}'), '/metadata/constructor'],
    ['PATCH info, __proto__ beside metadata', 'info', mergePatch('{"__proto__":{"metadata":{}}}'), '/__proto__'],
    ['PATCH configuration, __proto__', 'configuration', mergePatch('{"__proto__":{}}'), '/__proto__'],
    ['PATCH configuration, nested __proto__', 'configuration', mergePatch('{"fallback":{"__proto__":{"404":"/x.html"}}}'), '/fallback/__proto__'],
    ['PUT configuration, __proto__', 'configuration', body('PUT', '{"__proto__":{"root":"elsewhere"}}'), '/__proto__'],
    ['PATCH configuration, constructor', 'configuration', mergePatch('{"constructor":{"prototype":{}}}'), '/constructor'],
  ])('%s: 400 naming the member, and the site stays as it was', async (_, resource, init, pointer) => {
    const domain = `proto-${resource}-${Math.random().toString(36).slice(2, 8)}.example`;
    await deployed(domain, { 'index.html': '<p>home</p>' }, { fallback: { 404: '/index.html' } });
    const before = await observed(domain);
    const response = await authorized(`/v2/sites/${domain}/${resource}`, init);
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect((problem.errors as { pointer: string }[]).map((error) => error.pointer)).toContain(pointer);
    expect(await observed(domain)).toEqual(before);
    // The next change still goes through: the site's coordinator is not stuck on a bad record.
    const redeploy = await deploy(domain, { 'index.html': '<p>again</p>' });
    expect(redeploy.status).toBe(200);
    expect(await (await site(domain, '/')).text()).toBe('<p>again</p>');
  });

  it('the deploy refuses a configuration part with __proto__ (400) and keeps the site', async () => {
    const domain = 'proto-deploy.example';
    await deployed(domain, { 'index.html': '<p>home</p>' }, { root: '' });
    const before = await observed(domain);
    const response = await deploy(domain, { 'index.html': '<p>other</p>' }, '{"__proto__":{"root":"x"}}');
    expect(response.status).toBe(400);
    expect(await problemOf(response)).toMatchObject({ type: '/problems/invalid-configuration', errors: [expect.objectContaining({ pointer: '/__proto__' })] });
    expect(await observed(domain)).toEqual(before);
  });

  // RFC 7396 and JSON itself: a member name is a string like any other.
  it('keeps a string-valued __proto__ or constructor metadata member as an ordinary key', async () => {
    const domain = 'proto-metadata.example';
    await deployed(domain, { 'index.html': '<p>home</p>' });
    const put = await authorized(`/v2/sites/${domain}/info`, body('PUT', '{"metadata":{"team":"web"}}'));
    expect(put.status).toBe(200);
    const patch = await authorized(`/v2/sites/${domain}/info`, mergePatch('{"metadata":{"__proto__":"a","constructor":"b","team":null}}'));
    expect(patch.status).toBe(200);
    const expected = '{"__proto__":"a","constructor":"b"}';
    expect(JSON.stringify(((await patch.json()) as { metadata: unknown }).metadata)).toBe(expected);
    const [home, info] = await observed(domain);
    expect(home).toBe('<p>home</p>');
    expect(JSON.stringify((JSON.parse(info!) as { metadata: unknown }).metadata)).toBe(expected);
    const removed = await authorized(`/v2/sites/${domain}/info`, mergePatch('{"metadata":{"__proto__":null}}'));
    expect(JSON.stringify(((await removed.json()) as { metadata: unknown }).metadata)).toBe('{"constructor":"b"}');
  });
});

import { describe, expect, it } from 'vitest';
import { proofRecord } from '../../src/domains/proof-record';

describe('a proof record', () => {
  it('is a TXT record at _sitehost-challenge.<domain> whose value is the same for one user and domain every time', async () => {
    const record = await proofRecord('key', 'github|1', 'example.com');
    expect(record).toEqual({ name: '_sitehost-challenge.example.com', type: 'TXT', value: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(await proofRecord('key', 'github|1', 'example.com')).toEqual(record);
  });

  it('differs for another user, another domain and another key', async () => {
    const value = async (key: string, user: string, domain: string) => (await proofRecord(key, user, domain)).value;
    const values = await Promise.all([
      value('key', 'github|1', 'example.com'),
      value('key', 'github|2', 'example.com'),
      value('key', 'github|1', 'example.org'),
      value('other key', 'github|1', 'example.com'),
      // The user and the domain are kept apart: no split of one string makes another's value.
      value('key', 'github|1\nexample.com', 'x'),
    ]);
    expect(new Set(values).size).toBe(values.length);
  });
});

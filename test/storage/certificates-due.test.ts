import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { listCertificatesDue } from '../../src/storage/certificates';

/** The daily renewal run reads a bounded number of due certificates (issue 32): those never tried first, then the least lately tried. */
describe('certificates due for a job', () => {
  it('answers at most `limit`, the ones without a certificate first, then the least lately tried', async () => {
    const site = env.DB.prepare("INSERT INTO sites (domain, user_id, created, modified, configuration_modified) VALUES (?, 'github|due', 1, 1, 1)");
    const certificate = env.DB.prepare("INSERT INTO certificates (domain, status, updated) VALUES (?, 'failed', ?)");
    await env.DB.batch([
      site.bind('due-none.example'),
      site.bind('due-old.example'),
      site.bind('due-older.example'),
      certificate.bind('due-old.example', 2000),
      certificate.bind('due-older.example', 1000),
    ]);
    const now = 10_000_000;
    expect(await listCertificatesDue(env.DB, now, now, now, 2)).toEqual(['due-none.example', 'due-older.example']);
    expect(await listCertificatesDue(env.DB, now, now, now)).toEqual(['due-none.example', 'due-old.example', 'due-older.example']);
  });
});

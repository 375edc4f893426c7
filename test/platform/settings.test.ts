import { describe, expect, it } from 'vitest';
import { InvalidSetting, checkCertificateRetries, parseSettings } from '../../src/platform/settings';

const valid = {
  API_HOSTNAMES: 'localhost, API.example.com',
  MAX_FILES: '20000',
  MAX_TOTAL_BYTES: '104857600',
  MAX_FILE_BYTES: '26214400',
  CERT_RETRY_BASE_SECONDS: '60',
  CERT_JOB_MAX_RETRIES: '5',
  RETIRED_DEPLOYMENT_GRACE_SECONDS: '0',
  ORPHAN_SWEEP_GRACE_SECONDS: '3600',
  EVENTS_RETENTION_DAYS: '7',
  DEPLOYMENTS_KEPT: '20',
  DEPLOYMENTS_KEPT_DAYS: '30',
  PREVIEW_HOSTNAME: 'Preview.localhost',
  EDGE_PURGE: 'local',
  EDGE_CACHE_HOST: 'sitehost.cache',
  EDGE_LOCAL_CACHES: 'a, b',
};

describe('settings', () => {
  it('parses every var once into typed values', () => {
    expect(parseSettings(valid)).toEqual({
      apiHostnames: ['localhost', 'api.example.com'],
      maxFiles: 20000,
      maxTotalBytes: 104857600,
      maxFileBytes: 26214400,
      certRetryBaseSeconds: 60,
      certJobMaxRetries: 5,
      retiredDeploymentGraceSeconds: 0,
      orphanSweepGraceSeconds: 3600,
      eventsRetentionDays: 7,
      deploymentsKept: 20,
      deploymentsKeptDays: 30,
      previewHostname: 'preview.localhost',
      edge: { purge: 'local', cacheHost: 'sitehost.cache', localCaches: ['a', 'b'] },
    });
  });

  it.each([
    ['MAX_TOTAL_BYTES', '100MB'],
    ['MAX_TOTAL_BYTES', ''],
    ['MAX_FILES', '0'],
    ['MAX_FILES', '-5'],
    ['MAX_FILE_BYTES', '1e6'],
    ['MAX_FILE_BYTES', '2.5'],
    ['CERT_RETRY_BASE_SECONDS', 'sixty'],
    ['EVENTS_RETENTION_DAYS', undefined],
    ['ORPHAN_SWEEP_GRACE_SECONDS', 'an hour'],
    ['ORPHAN_SWEEP_GRACE_SECONDS', '-1'],
    ['API_HOSTNAMES', ' , '],
    ['API_HOSTNAMES', 'local host'],
    ['DEPLOYMENTS_KEPT', '0'],
    ['EDGE_PURGE', 'zone'],
    ['EDGE_CACHE_HOST', 'a.example, b.example'],
    ['DEPLOYMENTS_KEPT_DAYS', 'a month'],
    ['PREVIEW_HOSTNAME', 'preview.localhost:8787'],
    ['PREVIEW_HOSTNAME', 'a.example, b.example'],
  ])('refuses %s = %j, naming it', (setting, value) => {
    const attempt = () => parseSettings({ ...valid, [setting]: value });
    expect(attempt).toThrow(InvalidSetting);
    expect(attempt).toThrow(`The setting ${setting} is`);
  });

  it("requires CERT_JOB_MAX_RETRIES to equal the certificate queue's max_retries", () => {
    const settings = parseSettings(valid);
    expect(() => checkCertificateRetries(settings, 5)).not.toThrow();
    expect(() => checkCertificateRetries(settings, 3)).toThrow(/CERT_JOB_MAX_RETRIES .* max_retries \(3\)/);
    expect(() => checkCertificateRetries(settings, undefined)).toThrow(/not set/);
  });
});

describe('a bad setting in a running Worker', () => {
  it('answers every request with a 500 problem naming the setting', async () => {
    const { env, createExecutionContext } = await import('cloudflare:test');
    const { default: worker } = await import('../../src/index');
    const response = await worker.fetch(
      new Request('http://localhost/v2/sites') as Request<unknown, IncomingRequestCfProperties>,
      { ...env, MAX_TOTAL_BYTES: '100 MB' },
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await response.json()).toMatchObject({ status: 500, setting: 'MAX_TOTAL_BYTES', detail: expect.stringContaining('MAX_TOTAL_BYTES') });
  });
});

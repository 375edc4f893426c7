import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/events/webhook-signature';
import type { Env } from '../../src/platform/env';
import { retryDelaySeconds } from '../../src/events/webhook-receiver';
import { webhookTargets } from '../../src/events/webhooks';

const body = '{"type":"site-deploy","domain":"signed.example","isNewDomain":true,"hasNewFiles":true,"hasNewConfiguration":false}';

function headers(id: string, timestamp: number, signature: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('Standard Webhooks signatures', () => {
  const timestamp = Math.floor(Date.now() / 1000);

  it('verifies with the standardwebhooks package for a whsec_ secret', async () => {
    const secret = `whsec_${btoa('a key of twenty-four b!!')}`;
    const signature = await signWebhook(secret, '42', timestamp, body);
    expect(new Webhook(secret).verify(body, headers('42', timestamp, signature))).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body, headers('43', timestamp, signature))).toThrow();
  });

  it('uses any other secret as text', async () => {
    const secret = 'plain text secret';
    const signature = await signWebhook(secret, '7', timestamp, body);
    expect(() => new Webhook(secret, { format: 'raw' }).verify(body, headers('7', timestamp, signature))).not.toThrow();
  });
});

describe('webhook retries', () => {
  it('back off exponentially from 5 s, capped at the 12 h a queue allows', () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([5, 10, 20, 40]);
    expect(retryDelaySeconds(30)).toBe(43_200);
  });
});

describe('WEBHOOK_URLS', () => {
  it('is a comma-separated list of http(s) URLs; other entries are skipped', () => {
    const env = { WEBHOOK_URLS: ' https://hooks.example/hook , ,ftp://files.example/x,not a url,http://127.0.0.1:9000/h?x=1' } as Env;
    expect(webhookTargets(env)).toEqual(['https://hooks.example/hook', 'http://127.0.0.1:9000/h?x=1']);
    expect(webhookTargets({ WEBHOOK_URLS: '' } as Env)).toEqual([]);
  });
});

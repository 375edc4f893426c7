/// <reference types="vite/client" />
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { putChallenge } from '../../src/storage/certificates';
import { call } from '../support/client';
import wranglerToml from '../../wrangler.toml?raw';

describe('HTTP-01 answers on site hosts', () => {
  it("answers a token in progress with its key authorization, on that domain's host only", async () => {
    await putChallenge(env.DB, 'challenge.example', 'tok_en-1', 'tok_en-1.thumbprint', Date.now());
    const answer = await call('http://challenge.example/.well-known/acme-challenge/tok_en-1');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await answer.text()).toBe('tok_en-1.thumbprint');
    // Locally, <domain>.localhost is the same site.
    expect(await (await call('http://challenge.example.localhost/.well-known/acme-challenge/tok_en-1')).text()).toBe('tok_en-1.thumbprint');

    const otherHost = await call('http://other.example/.well-known/acme-challenge/tok_en-1');
    expect(otherHost.status).toBe(404);
    expect(await otherHost.text()).not.toContain('thumbprint');
    expect((await call('http://challenge.example/.well-known/acme-challenge/unknown')).status).toBe(404);
  });
});

describe('the certificate queue settings', () => {
  it('CERT_JOB_MAX_RETRIES equals the consumer max_retries, so the last attempt is the one marked failed', () => {
    const consumer = /\[\[queues\.consumers\]\]\s*\nqueue = "sitehost-certificates"\n(?:[^[]*\n)*?max_retries = (\d+)/.exec(wranglerToml);
    expect(consumer?.[1]).toBe(env.CERT_JOB_MAX_RETRIES);
    expect(wranglerToml).toMatch(/queue = "sitehost-certificates"[^[]*dead_letter_queue = "sitehost-certificates-dlq"/);
  });
});

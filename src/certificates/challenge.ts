import type { Env } from '../platform/env';
import { getChallengeAnswer } from '../storage/certificates';

const challengePath = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/;

/**
 * HTTP-01 (RFC 8555 §8.3): answers `GET /.well-known/acme-challenge/<token>` on a site's host
 * with the key authorization of a challenge in progress for that domain. Undefined for every
 * other request, which site serving then handles; the path itself is reserved for this.
 */
export function answerAcmeChallenge(request: Request, url: URL, env: Env, domain: string): Promise<Response> | undefined {
  const token = challengePath.exec(url.pathname)?.[1];
  if (!token || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  return getChallengeAnswer(env.DB, domain, token).then((answer) =>
    answer === null
      ? new Response('No ACME challenge is in progress with this token.\n', { status: 404, headers: plainText })
      : new Response(request.method === 'HEAD' ? null : answer, { headers: plainText }),
  );
}

const plainText = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

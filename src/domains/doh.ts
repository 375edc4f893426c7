/**
 * TXT records looked up over DNS-over-HTTPS with the JSON API that Cloudflare's and Google's
 * resolvers answer (`GET <resolver>?name=…&type=TXT`, `accept: application/dns-json`). No library
 * speaks that JSON API in a Worker (DNS libraries encode wire-format messages or use node:dns),
 * and what it takes is small: one GET, and the text of each TXT record in the answer.
 */

import { BodyTooLarge, readAtMost } from '../http/bounded-read';

/** The resolver gave no usable answer; the message says what it did, after "the resolver". */
export class ResolverUnavailable extends Error {
  override name = 'ResolverUnavailable';
}

/** How long a lookup may take, its answer's body included: a resolver answers in milliseconds, or is in trouble. */
const lookupTimeoutMs = 5_000;
/**
 * The largest answer read: 64 KiB, the most a DNS message can hold (RFC 1035's 16-bit length over
 * TCP), so no true answer is larger. Read as it streams: a resolver (or whatever answers at its URL)
 * sending more is cut off there rather than held in an isolate of 128 MB.
 */
export const maxAnswerBytes = 64 * 1024;
const txtType = 16;
/** DNS response codes that answer the question: NOERROR, and NXDOMAIN (no such name, so no record). */
const noError = 0;
const noSuchName = 3;

/** The text of each TXT record at `name` (its character-strings joined), following CNAMEs as the resolver does. */
export async function txtRecords(resolverUrl: string, name: string, fetcher: typeof fetch = fetch): Promise<string[]> {
  const url = new URL(resolverUrl);
  url.searchParams.set('name', name);
  url.searchParams.set('type', 'TXT');
  const deadline = AbortSignal.timeout(lookupTimeoutMs);
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: 'application/dns-json' }, signal: deadline });
  } catch (error) {
    if (deadline.aborted) throw timedOut();
    throw new ResolverUnavailable(`could not be reached (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ResolverUnavailable(`answered HTTP ${response.status}`);
  }
  let body: Uint8Array;
  try {
    body = await readAtMost(response.body, maxAnswerBytes, deadline);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new ResolverUnavailable(`answered more than ${maxAnswerBytes} bytes, more than any DNS answer`);
    if (deadline.aborted) throw timedOut();
    throw new ResolverUnavailable(`broke off its answer (${error instanceof Error ? error.message : String(error)})`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new ResolverUnavailable('answered something that is not JSON');
  }
  return txtOfAnswer(answer);
}

function timedOut(): ResolverUnavailable {
  return new ResolverUnavailable(`timed out: no whole answer within ${lookupTimeoutMs / 1000} seconds`);
}

/** The TXT records of a DoH JSON answer (`{"Status": 0, "Answer": [{"type": 16, "data": …}]}`). */
export function txtOfAnswer(answer: unknown): string[] {
  if (!isObject(answer) || typeof answer.Status !== 'number') throw new ResolverUnavailable('answered something that is not DNS-over-HTTPS JSON');
  if (answer.Status === noSuchName) return [];
  if (answer.Status !== noError) throw new ResolverUnavailable(`answered DNS response code ${answer.Status}`);
  const records = answer.Answer ?? [];
  if (!Array.isArray(records) || !records.every((record) => isObject(record) && typeof record.type === 'number' && typeof record.data === 'string')) {
    throw new ResolverUnavailable('answered something that is not DNS-over-HTTPS JSON');
  }
  return (records as { type: number; data: string }[]).filter((record) => record.type === txtType).map((record) => txtData(record.data));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A TXT record's text from an answer's `data`. Cloudflare writes it in zone-file form: quoted
 * character-strings (a record over 255 bytes is split into several: `"abc" "def"`), with `\"`,
 * `\\` and `\DDD` (a byte in decimal) escapes; the strings are joined, as SPF and every domain
 * verification read them (RFC 7208 §3.3). Google writes the text itself, unquoted.
 */
export function txtData(data: string): string {
  if (!data.startsWith('"')) return data;
  const bytes: number[] = [];
  let at = 0;
  while (at < data.length) {
    if (data[at] === ' ' || data[at] === '\t') {
      at++;
      continue;
    }
    if (data[at] !== '"') throw new ResolverUnavailable('answered a TXT record that is not made of quoted strings');
    at = readString(data, at + 1, bytes);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

const encoder = new TextEncoder();

/** Appends the bytes of the quoted string whose text starts at `at` to `bytes`; returns where it ends, past its closing quote. */
function readString(data: string, at: number, bytes: number[]): number {
  for (;;) {
    if (at >= data.length) throw new ResolverUnavailable('answered a TXT record with an unterminated string');
    let code = data.charCodeAt(at);
    if (code === 0x22) return at + 1;
    if (code === 0x5c) {
      const decimal = data.slice(at + 1, at + 4);
      if (/^\d{3}$/.test(decimal) && Number(decimal) < 256) {
        bytes.push(Number(decimal));
        at += 4;
        continue;
      }
      at++;
      if (at >= data.length) throw new ResolverUnavailable('answered a TXT record that ends in a lone backslash');
      code = data.charCodeAt(at);
    }
    if (code < 0x80) {
      bytes.push(code);
      at++;
    } else {
      const character = String.fromCodePoint(data.codePointAt(at)!);
      bytes.push(...encoder.encode(character));
      at += character.length;
    }
  }
}

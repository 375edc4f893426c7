/**
 * Cursors of the configurations feed: a position in its history (a value of the configurations
 * clock, src/storage/configurations-feed.ts) with an HMAC under the key this database was created
 * with. A client cannot forge one, and one from another deployment of the service fails the check.
 */
import { base64url } from 'jose';
import { Problem } from '../http/problem';
import type { ConfigurationsClock } from '../storage/configurations-feed';

/** The MAC's bytes kept: 128 bits, base64url in 22 characters. */
const macBytes = 16;
const cursorForm = /^(0|[1-9]\d{0,15})\.([A-Za-z0-9_-]{22})$/;

async function mac(key: Uint8Array, position: number): Promise<Uint8Array> {
  const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(`configurations:${position}`));
  return new Uint8Array(signature, 0, macBytes);
}

/** The cursor of `position`: a client that asks with it gets the changes after it. */
export async function cursorAt(clock: ConfigurationsClock, position: number): Promise<string> {
  return `${position}.${base64url.encode(await mac(clock.cursorKey, position))}`;
}

/** A cursor as a client sent it: the position it names and its MAC, not yet checked. */
export interface SentCursor {
  position: number;
  mac: Uint8Array;
}

function invalidCursor(): Problem {
  return new Problem('invalid-request', '`since` must be a cursor this service gave (a `Sitehost-Cursor` header or a feed\'s `cursor`).');
}

/** The position a cursor names, read before anything else is (400 for one of another form). */
export function sentCursor(cursor: string): SentCursor {
  const match = cursorForm.exec(cursor);
  const mac = match && base64url.decode(match[2]!);
  if (!mac || mac.length !== macBytes) throw invalidCursor();
  return { position: Number(match[1]), mac };
}

/**
 * 400 for a cursor this service did not give (forged, or another deployment's); 410 for one older
 * than the history it keeps, and for one past its clock: given before the database was restored to
 * an earlier minute (docs/operating.md), it names changes that are lost. Either way the client lists again.
 */
export async function checkCursor(clock: ConfigurationsClock, cursor: SentCursor): Promise<void> {
  if (!crypto.subtle.timingSafeEqual(cursor.mac, await mac(clock.cursorKey, cursor.position))) throw invalidCursor();
  if (cursor.position > clock.modified) {
    throw new Problem('gone', 'This cursor is past the history this service holds (its database was restored to an earlier point): list every configuration again (GET /v2/configurations) and follow from its `Sitehost-Cursor`.');
  }
  if (cursor.position < clock.forgotten) {
    throw new Problem('gone', 'The changes after this cursor are no longer all kept: list every configuration again (GET /v2/configurations) and follow from its `Sitehost-Cursor`.');
  }
}

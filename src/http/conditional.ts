/**
 * Whether an `If-None-Match` header matches `etag` (RFC 9110 §13.1.2): `*`, or any listed tag
 * under the weak comparison a GET or HEAD uses (`W/"x"` matches `"x"`).
 */
export function ifNoneMatchMatches(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** A time cut to the whole second, as an HTTP-date carries it. */
export function wholeSecond(epochMs: number): number {
  return Math.floor(epochMs / 1000) * 1000;
}

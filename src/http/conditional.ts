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

/**
 * The Last-Modified of a resource whose latest change was at `modified`, answered at `now` (both
 * by one clock). An HTTP-date has whole seconds, and until the second of the latest change is
 * over another change may still fall within it: until then the response is stamped with the
 * second before, which a revalidation then tells apart from the complete copy stamped later.
 */
export function settledLastModified(modified: number, now: number): number {
  const second = wholeSecond(modified);
  return now >= second + 1000 ? second : second - 1000;
}

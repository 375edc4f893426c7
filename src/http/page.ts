import { Problem } from './problem';

/** The most items one page of a list may ask for. */
export const maxPageSize = 1000;
/** A cursor is the key of the last item of the previous page: a domain name at most. */
const maxCursorLength = 253;

/** One page of a list as the query asked for it: `?limit=` items after `?cursor=`; no limit, every item. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export function pageQuery(url: URL): PageQuery {
  const limit = url.searchParams.get('limit');
  const cursor = url.searchParams.get('cursor');
  const query: PageQuery = {};
  if (limit !== null) {
    if (!/^[1-9]\d*$/.test(limit)) throw new Problem('invalid-request', '`limit` must be a whole number from 1.');
    query.limit = Number(limit);
    if (query.limit > maxPageSize) {
      throw new Problem('invalid-request', `\`limit\` may be at most ${maxPageSize}.`, { extensions: { limit: 'MAX_PAGE_SIZE', value: maxPageSize } });
    }
  }
  if (cursor !== null) {
    if (cursor.length === 0 || cursor.length > maxCursorLength) throw new Problem('invalid-request', '`cursor` must be one this list gave in a `Link` header.');
    query.cursor = cursor;
  }
  return query;
}

/** The RFC 8288 `Link` to the page after one that ended at `lastKey`. */
export function nextPageLink(url: URL, limit: number, lastKey: string): string {
  const next = new URLSearchParams({ limit: String(limit), cursor: lastKey });
  return `<${url.pathname}?${next}>; rel="next"`;
}

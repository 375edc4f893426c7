/**
 * The bodies of GET /v2/configurations: every record, streamed in keyset pages so that memory
 * stays flat however many sites there are; one page (`?limit=`); and a page of the changes feed
 * (`?since=`). A record's configuration is written as D1 holds it (JSON text), never parsed.
 */
import { timestamp } from '../http/time';
import { type StoredChange, type StoredConfiguration, configurationsAfter } from '../storage/configurations-feed';

/** Records read from D1 at a time while streaming: about 0.5 KB each, so a page holds about 0.5 MB. */
const streamPageSize = 1000;

/** A configuration record (`{domain, modified, configuration}`, docs/api.md) as JSON text. */
export function recordJson(record: StoredConfiguration): string {
  return `{"domain":${JSON.stringify(record.domain)},"modified":"${timestamp(record.modified)}","configuration":${record.configuration}}`;
}

/** A change of the feed as JSON text: the record, or `{domain, modified, deleted: true}`. */
export function changeJson(change: StoredChange): string {
  if (change.configuration !== null) return recordJson({ ...change, configuration: change.configuration });
  return `{"domain":${JSON.stringify(change.domain)},"modified":"${timestamp(change.modified)}","deleted":true}`;
}

/**
 * Every site's record, in domain order, as one JSON array. A page is read only when the client
 * has taken the one before (no queue builds up); a client that goes away cancels the stream, and
 * no further page is read. A site changed while the list streams is listed as it was when its
 * page was read: the feed after the answer's cursor brings it up to date.
 */
export function streamedConfigurations(db: D1Database): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: string | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const page = await configurationsAfter(db, after ?? '', streamPageSize);
        const records = page.map(recordJson).join(',');
        const opening = after === undefined ? '[' : page.length > 0 ? ',' : '';
        const last = page.length < streamPageSize;
        controller.enqueue(encoder.encode(`${opening}${records}${last ? ']' : ''}`));
        if (last) controller.close();
        else after = page.at(-1)!.domain;
      },
    },
    { highWaterMark: 0 },
  );
}

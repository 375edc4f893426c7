import { keys } from './file-index';

/** R2 deletes take at most 1,000 keys per call. */
const deleteBatch = 1000;

export async function deleteObjects(bucket: R2Bucket, objectKeys: readonly string[]): Promise<void> {
  for (let start = 0; start < objectKeys.length; start += deleteBatch) {
    await bucket.delete(objectKeys.slice(start, start + deleteBatch));
  }
}

/** Deletes every object of a site, including any an interrupted deploy left behind. */
export async function deleteSiteObjects(bucket: R2Bucket, domain: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listing = await bucket.list({ prefix: keys.sitePrefix(domain), cursor });
    await deleteObjects(
      bucket,
      listing.objects.map((object) => object.key),
    );
    cursor = listing.truncated ? listing.cursor : undefined;
  } while (cursor);
}

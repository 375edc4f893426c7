/** R2 deletes take at most 1,000 keys per call. */
const deleteBatch = 1000;

export async function deleteObjects(bucket: R2Bucket, objectKeys: readonly string[]): Promise<void> {
  for (let start = 0; start < objectKeys.length; start += deleteBatch) {
    await bucket.delete(objectKeys.slice(start, start + deleteBatch));
  }
}

/** Every object under `prefix`, a page (at most 1,000, R2's most per list call) at a time. */
export async function* listObjects(bucket: R2Bucket, prefix: string): AsyncGenerator<R2Object[]> {
  let cursor: string | undefined;
  do {
    const listing = await bucket.list({ prefix, cursor });
    yield listing.objects;
    cursor = listing.truncated ? listing.cursor : undefined;
  } while (cursor);
}

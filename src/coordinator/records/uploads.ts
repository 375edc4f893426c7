/**
 * The multipart uploads of a domain's packs, recorded in its coordinator's storage from before
 * their first part until their pack is committed or the upload aborted. R2 lists no unfinished
 * upload: one whose Worker stopped is found only here, and aborted once abandoned, or at once
 * when the site is unpublished.
 */
import { log } from '../../platform/log';
import { deleteObjects } from '../../storage/objects';

interface RecordedUpload {
  domain: string;
  key: string;
  uploadId: string;
  begun: number;
  /** Set by an unpublish: abort it now rather than once it is abandoned. */
  abortNow?: boolean;
}

const uploadPrefix = 'upload/';
/** A recorded upload this old is taken for abandoned: a deploy's body (100 MiB at most) arrives far sooner. */
export const abandonedUploadMs = 3_600_000;
/** R2 aborts unfinished uploads itself after 7 days (a bucket's default lifecycle rule): an older record has nothing left to abort. */
const uploadRecordLimitMs = 7 * 86_400_000;
const retryMs = 10_000;

function dueOf(upload: RecordedUpload): number {
  return upload.abortNow ? 0 : upload.begun + abandonedUploadMs;
}

export class RecordedUploads {
  /** `bucketOf` answers the coordinator's bucket at each use: tests swap its env to inject failures. */
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly bucketOf: () => R2Bucket,
  ) {}

  private get bucket(): R2Bucket {
    return this.bucketOf();
  }

  record(domain: string, key: string, uploadId: string): void {
    this.storage.kv.put(uploadPrefix + key, { domain, key, uploadId, begun: Date.now() } satisfies RecordedUpload);
  }

  /** The packs of the recorded uploads: each is held until it is committed or its upload aborted. */
  keys(): string[] {
    return [...this.storage.kv.list<RecordedUpload>({ prefix: uploadPrefix })].map(([, upload]) => upload.key);
  }

  /** The upload of `key` was aborted, or completed: nothing is left to abort. */
  forget(key: string): void {
    this.storage.kv.delete(uploadPrefix + key);
  }

  /** An unpublish: every recorded upload is due for aborting now. */
  abortAllNow(): void {
    for (const [key, upload] of [...this.storage.kv.list<RecordedUpload>({ prefix: uploadPrefix })]) {
      this.storage.kv.put(key, { ...upload, abortNow: true });
    }
  }

  /**
   * Aborts the uploads that are due. One whose pack was completed but never committed (its
   * Worker stopped in between) leaves an object instead: deleted unless `isLive` says the live
   * deployment uses it. A failed abort is retried by the alarm.
   */
  async abortDue(isLive: (key: string) => Promise<boolean>): Promise<void> {
    for (const [key, upload] of [...this.storage.kv.list<RecordedUpload>({ prefix: uploadPrefix })]) {
      if (dueOf(upload) > Date.now()) continue;
      try {
        await this.bucket.resumeMultipartUpload(upload.key, upload.uploadId).abort();
        if (!(await isLive(upload.key))) await deleteObjects(this.bucket, [upload.key]);
      } catch (error) {
        const expired = Date.now() - upload.begun >= uploadRecordLimitMs;
        log.error('Aborting an unfinished upload failed', { key: upload.key, retryInSeconds: expired ? null : retryMs / 1000, error });
        if (!expired) continue;
      }
      this.storage.kv.delete(key);
    }
  }

  /** When the next abort is due, if any. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const [, upload] of this.storage.kv.list<RecordedUpload>({ prefix: uploadPrefix })) next = Math.min(next ?? Infinity, dueOf(upload));
    return next;
  }
}

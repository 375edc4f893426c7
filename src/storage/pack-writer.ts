/**
 * Writes many files into one R2 object (a "pack"), so a deploy of 20,000 small files costs a
 * handful of R2 calls instead of 20,000; files are later read back with ranged GETs.
 *
 * Appended bytes are copied into equal part buffers of `partSize` (R2 multipart uploads need
 * every part but the last to be the same size, and at least 5 MiB); two parts upload at a time
 * while the next one fills. The buffers are reused once their upload has ended, so a writer holds
 * three at most and allocates nothing per append whatever the pack's size (fresh buffers would
 * wait for V8's garbage collector, and workerd's memory would grow with the deploy). Callers may
 * reuse the bytes they appended once `append` resolves. A pack smaller than one part is written
 * with a single PUT.
 */
const partsInFlight = 2;
/** R2's least part size (every part but the last). */
export const packPartSize = 5 * 1024 * 1024;

/**
 * Keeps account of a pack's unfinished multipart upload. R2 lists no unfinished upload, so one
 * that a crash cut off is found again only through this record, to be aborted.
 */
export interface UploadRecord {
  /** Called once the upload exists, before its first part is written. */
  begun(key: string, uploadId: string): Promise<void>;
  /** Called once the upload is aborted. (A completed one is forgotten when its pack is committed.) */
  aborted(key: string): Promise<void>;
}

interface PartInFlight {
  uploaded: Promise<R2UploadedPart>;
  buffer: Uint8Array;
}

export class PackWriter {
  #filling: Uint8Array | undefined;
  #filled = 0;
  /** A part buffer whose upload has ended, to fill next. */
  #spare: Uint8Array | undefined;
  #written = 0;
  #stored = 0;
  #upload: R2MultipartUpload | undefined;
  #parts: Promise<R2UploadedPart>[] = [];
  #inFlight: PartInFlight[] = [];

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly partSize = packPartSize,
    private readonly record?: UploadRecord,
  ) {}

  /** Bytes appended so far: the offset the next append lands at. */
  get size(): number {
    return this.#written + this.#filled;
  }

  /** Bytes the finished pack holds: 0 before `finish`, and when it wrote nothing. */
  get stored(): number {
    return this.#stored;
  }

  /** How many more bytes the part being filled takes: an append of as many or more uploads it. */
  get room(): number {
    return this.partSize - this.#filled;
  }

  /**
   * The bytes appended since `offset`, while the part being filled still holds them all: a view of
   * its buffer, valid until the next append. Undefined once some of them are in an uploaded part.
   */
  heldSince(offset: number): Uint8Array | undefined {
    if (offset < this.#written) return undefined;
    return this.#filling?.subarray(offset - this.#written, this.#filled) ?? new Uint8Array(0);
  }

  /**
   * Drops the bytes appended since `offset` (a file whose content is stored already), when the
   * part being filled still holds them all; false, and nothing dropped, once some are uploaded.
   */
  dropSince(offset: number): boolean {
    if (offset < this.#written || offset > this.size) return false;
    this.#filled = offset - this.#written;
    return true;
  }

  /** Copies `bytes` into the pack and returns their offset in it. */
  async append(bytes: Uint8Array): Promise<number> {
    const offset = this.size;
    for (let from = 0; from < bytes.byteLength; ) {
      const buffer = (this.#filling ??= this.#takeSpare());
      const length = Math.min(bytes.byteLength - from, this.partSize - this.#filled);
      buffer.set(bytes.subarray(from, from + length), this.#filled);
      this.#filled += length;
      from += length;
      if (this.#filled === this.partSize) await this.#flushPart();
    }
    return offset;
  }

  /**
   * Stores the pack's first `length` bytes: all appended by default, or fewer when those after
   * them are to go (a part that failed its check). Returns false when that is none (no object is
   * written). An uploaded part cannot be cut: when `length` ends inside one, the parts after it go
   * and it is kept whole, so at most a part's size of bytes past `length` stays.
   */
  async finish(length = this.size): Promise<boolean> {
    let parts = this.#parts;
    if (length > this.#written) {
      this.#filled = Math.min(this.#filled, length - this.#written);
    } else {
      this.#filled = 0;
      parts = parts.slice(0, Math.ceil(length / this.partSize));
      // The parts left out must have ended before the upload completes without them.
      await Promise.allSettled(this.#parts);
    }
    if (!this.#upload) {
      if (this.#filled === 0) return false;
      await this.bucket.put(this.key, this.#filling!.subarray(0, this.#filled));
      this.#stored = this.#filled;
      return true;
    }
    if (parts.length === 0) {
      await this.abort();
      return false;
    }
    if (this.#filled > 0) {
      this.#startPart();
      parts = this.#parts;
    }
    this.#stored = (await this.#upload.complete(await Promise.all(parts))).size;
    return true;
  }

  /**
   * Discards what was appended, before `finish`: the aborted upload leaves no object behind, and a
   * pack smaller than a part was never written. (A finished pack is deleted only by its site's
   * coordinator, src/deploy/hand-over.ts.)
   */
  async abort(): Promise<void> {
    this.#filling = this.#spare = undefined;
    await Promise.allSettled(this.#parts);
    if (!this.#upload) return;
    await this.#upload.abort();
    await this.record?.aborted(this.key);
  }

  async #flushPart(): Promise<void> {
    // Up to `partsInFlight` parts upload while the next one fills; once the oldest has ended
    // (a failed part surfaces here), its buffer is free for the part after this one.
    if (this.#inFlight.length === partsInFlight) {
      const oldest = this.#inFlight.shift()!;
      await oldest.uploaded;
      this.#spare = oldest.buffer;
    }
    if (!this.#upload) {
      // Kept before it is recorded, so that an abort after a failed record still aborts it.
      this.#upload = await this.bucket.createMultipartUpload(this.key);
      await this.record?.begun(this.key, this.#upload.uploadId);
    }
    this.#startPart();
  }

  #startPart(): void {
    const buffer = this.#filling!;
    const uploaded = this.#upload!.uploadPart(this.#parts.length + 1, buffer.subarray(0, this.#filled));
    this.#parts.push(uploaded);
    this.#inFlight.push({ uploaded, buffer });
    this.#written += this.#filled;
    this.#filled = 0;
    this.#filling = undefined;
    // A failed part surfaces when its buffer is next needed or at finish; marked handled until then.
    uploaded.catch(() => {});
  }

  #takeSpare(): Uint8Array {
    const buffer = this.#spare ?? new Uint8Array(this.partSize);
    this.#spare = undefined;
    return buffer;
  }
}

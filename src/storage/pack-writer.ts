/**
 * Writes many files into one R2 object (a "pack"), so a deploy of 20,000 small files costs a
 * handful of R2 calls instead of 20,000; files are later read back with ranged GETs.
 *
 * Bytes are cut into equal parts of `partSize` (R2 multipart uploads need every part but
 * the last to be the same size, and at least 5 MiB); two upload at a time while the next
 * part fills, so memory stays at about four parts whatever the pack's size. A pack smaller than one
 * part is written with a single PUT.
 */
const partsInFlight = 2;

export class PackWriter {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #written = 0;
  #upload: R2MultipartUpload | undefined;
  #parts: Promise<R2UploadedPart>[] = [];

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly partSize = 5 * 1024 * 1024,
  ) {}

  /** Bytes appended so far: the offset the next append lands at. */
  get size(): number {
    return this.#written + this.#buffered;
  }

  /** Appends bytes and returns their offset in the pack. */
  async append(bytes: Uint8Array): Promise<number> {
    const offset = this.size;
    if (bytes.byteLength === 0) return offset;
    this.#chunks.push(bytes);
    this.#buffered += bytes.byteLength;
    while (this.#buffered >= this.partSize) await this.#flushPart();
    return offset;
  }

  /** Stores the pack. Returns false when nothing was appended (no object is written). */
  async finish(): Promise<boolean> {
    if (!this.#upload) {
      if (this.#buffered === 0) return false;
      await this.bucket.put(this.key, this.#take(this.#buffered));
      return true;
    }
    if (this.#buffered > 0) this.#startPart(this.#take(this.#buffered));
    const parts = await Promise.all(this.#parts);
    await this.#upload.complete(parts);
    return true;
  }

  /** Discards whatever was written: the aborted upload leaves no object behind. */
  async abort(): Promise<void> {
    this.#chunks = [];
    await Promise.allSettled(this.#parts);
    if (this.#upload) await this.#upload.abort();
    else await this.bucket.delete(this.key);
  }

  async #flushPart(): Promise<void> {
    const part = this.#take(this.partSize);
    // Up to `partsInFlight` parts upload while the next one fills; wait for the oldest before starting another.
    await this.#parts[this.#parts.length - partsInFlight];
    this.#upload ??= await this.bucket.createMultipartUpload(this.key);
    this.#startPart(part);
  }

  #startPart(bytes: Uint8Array): void {
    const upload = this.#upload!;
    const uploaded = upload.uploadPart(this.#parts.length + 1, bytes);
    this.#parts.push(uploaded);
    // A failed part surfaces at the next append or at finish; marked handled until then.
    uploaded.catch(() => {});
  }

  /** Removes the first `length` buffered bytes as one contiguous array. */
  #take(length: number): Uint8Array {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const chunk = this.#chunks[0]!;
      const wanted = length - filled;
      if (chunk.byteLength <= wanted) {
        out.set(chunk, filled);
        filled += chunk.byteLength;
        this.#chunks.shift();
      } else {
        out.set(chunk.subarray(0, wanted), filled);
        this.#chunks[0] = chunk.subarray(wanted);
        filled += wanted;
      }
    }
    this.#buffered -= length;
    this.#written += length;
    return out;
  }
}

import type { ChunkWriter } from '../upload.ts';

/** The size of each of the two buffers pieces are gathered in. */
const bufferBytes = 256 * 1024;

/**
 * Gathers a request body's small pieces (part headers, small files read whole, line breaks) into
 * few large writes. Written one by one, each awaited, 2,000 files of 1 KB took 6,000 socket writes
 * and 0.9 s; gathered, eight writes. Two buffers alternate: one fills while the other is on its
 * way out, and memory holds those two whatever the body's size.
 */
export class ChunkGatherer {
  readonly #send: ChunkWriter;
  readonly #buffers = [Buffer.allocUnsafe(bufferBytes), Buffer.allocUnsafe(bufferBytes)] as const;
  readonly #sending: [Promise<void>, Promise<void>] = [Promise.resolve(), Promise.resolve()];
  #turn: 0 | 1 = 0;
  #used = 0;
  /** Told once the bytes gathered so far are on the wire. */
  #onSent: (() => void)[] = [];

  constructor(send: ChunkWriter) {
    this.#send = send;
  }

  /** Appends `bytes`, sending each buffer as it fills. */
  async add(bytes: Uint8Array): Promise<void> {
    for (let at = 0; at < bytes.byteLength; ) {
      const taken = Math.min(bytes.byteLength - at, bufferBytes - this.#used);
      this.#buffers[this.#turn].set(bytes.subarray(at, at + taken), this.#used);
      this.#used += taken;
      at += taken;
      if (this.#used === bufferBytes) await this.flush();
    }
  }

  /**
   * Lets `fill` write up to `room` bytes (at most a buffer's 256 KiB) straight into the buffer, a small
   * file read whole, say; `fill` answers how many it wrote.
   */
  async fill(room: number, fill: (buffer: Uint8Array, offset: number) => number): Promise<void> {
    if (bufferBytes - this.#used < room) await this.flush();
    this.#used += fill(this.#buffers[this.#turn], this.#used);
  }

  /** Calls `done` once every byte gathered so far has been sent. */
  afterSent(done: () => void): void {
    this.#onSent.push(done);
  }

  /** Sends what is gathered, and waits until the other buffer, to be filled next, is free. */
  async flush(): Promise<void> {
    const turn = this.#turn;
    const onSent = this.#onSent;
    this.#onSent = [];
    const chunk = this.#buffers[turn].subarray(0, this.#used);
    const previous = this.#sending[turn === 0 ? 1 : 0];
    this.#sending[turn] = (chunk.byteLength > 0 ? this.#send(chunk) : previous).then(() => {
      for (const done of onSent) done();
    });
    // Awaited when this buffer's turn comes again, or by `end`; a failure meanwhile is not an unhandled one.
    this.#sending[turn].catch(() => {});
    this.#turn = turn === 0 ? 1 : 0;
    this.#used = 0;
    await this.#sending[this.#turn];
  }

  /** Sends the rest and waits until everything is sent. */
  async end(): Promise<void> {
    await this.flush();
    await Promise.all(this.#sending);
  }
}

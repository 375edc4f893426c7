/**
 * A move of a domain's rows out of the global D1 into its coordinator's own storage (issue 32):
 * done once a domain, marked in storage once it is; one call at a time in an instance runs it, and
 * one that fails is run again by the next call. A move must be safe to run again from any point
 * where it stopped.
 */
export class MoveOnce {
  #moved: Promise<void> | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** The storage key that marks the move done. */
    private readonly doneKey: string,
    private readonly move: (domain: string) => Promise<void>,
  ) {}

  /** Resolves once `domain`'s rows are moved. */
  moved(domain: string): Promise<void> {
    this.#moved ??= this.#run(domain).catch((error: unknown) => {
      this.#moved = undefined;
      throw error;
    });
    return this.#moved;
  }

  async #run(domain: string): Promise<void> {
    if (this.storage.kv.get(this.doneKey)) return;
    await this.move(domain);
    this.storage.kv.put(this.doneKey, true);
  }
}

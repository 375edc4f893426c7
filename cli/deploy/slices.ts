/**
 * Synchronous file system calls are several times faster than their promises for small files
 * (2,000 stats: 10 ms against 50 ms), but hold the event loop: a request opened beforehand would
 * not send its headers meanwhile. Work done in slices lets the loop turn between them.
 */

/** How long synchronous work keeps the event loop before letting it turn. */
const sliceMs = 2;

/** A function to await between steps of synchronous work: it lets the event loop turn once a slice has passed. */
export function slicer(): () => Promise<void> | undefined {
  let sliceStart = performance.now();
  return () => {
    if (performance.now() - sliceStart <= sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        sliceStart = performance.now();
        resolve();
      }),
    );
  };
}

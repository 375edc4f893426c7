/**
 * Longest request path served, in characters of its percent-encoded form (bytes, as it is
 * ASCII). Real paths stay far below; longer ones would only make every rule match cost more,
 * and bound what a rule's variables can expand to.
 */
export const maxPathLength = 4096;

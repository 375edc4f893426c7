/**
 * HyperLogLog sketches of a site's visitors (docs/analytics.md, "Unique visitors"). Hand-written:
 * the npm packages found either hash the values themselves (we hash with the day's secret before
 * a value reaches the sketch), keep dense registers only (16 KiB for one visitor, where an isolate
 * holds a sketch per site and hour), or cannot lower a sketch's precision; this file is the
 * register arithmetic and Ertl's estimator ("New cardinality estimation algorithms for
 * HyperLogLog sketches", 2017), which needs no bias tables.
 *
 * A register is named by its index and holds a rank. What leaves an isolate is registers only,
 * `index * 64 + rank`, never a hash: a register keeps 20 bits of a 64-bit hash at most.
 */

/** Bits of the hash that pick the register of a fine sketch: 16,384 registers, a standard error of 0.81 %. */
export const finePrecision = 14;
/** A coarse sketch (per stored hour): 1,024 registers, 3.25 %, folded from fine registers. */
export const coarsePrecision = 10;

/** Every register of a sketch of `precision`: a rank per index, 0 where none was seen. */
export type Registers = Uint8Array;

export function emptyRegisters(precision: number): Registers {
  return new Uint8Array(1 << precision);
}

/** The fine register a 64-bit hash (two 32-bit halves) lands in, as `index * 64 + rank`. */
export function registerOf(high: number, low: number): number {
  const index = high >>> (32 - finePrecision);
  const rest = (high << finePrecision) >>> 0;
  // The rank: one more than the leading zeros of the 50 bits after the index.
  const rank = rest !== 0 ? Math.clz32(rest) + 1 : 32 - finePrecision + Math.clz32(low) + 1;
  return index * 64 + rank;
}

/** A fine register (`index * 64 + rank`) as the register of a sketch of a lower `precision` it folds into. */
export function folded(register: number, precision: number): [index: number, rank: number] {
  const index = register >>> 6;
  const rank = register & 63;
  const dropped = finePrecision - precision;
  if (dropped === 0) return [index, rank];
  const low = index & ((1 << dropped) - 1);
  // The index bits that leave the index now lead the rest of the hash.
  const foldedRank = low !== 0 ? Math.clz32(low) - (32 - dropped) + 1 : dropped + rank;
  return [index >>> dropped, foldedRank];
}

/** Raises `registers` (of their own precision) by each fine register in `fine`. */
export function mergeFine(registers: Registers, fine: Iterable<number>): void {
  const precision = Math.log2(registers.length);
  for (const register of fine) {
    const [index, rank] = folded(register, precision);
    if (rank > registers[index]!) registers[index] = rank;
  }
}

/** Raises `into` by `from`, of the same precision. */
export function mergeRegisters(into: Registers, from: Registers): void {
  for (let i = 0; i < into.length; i++) if (from[i]! > into[i]!) into[i] = from[i]!;
}

/** The estimated number of distinct hashes merged into `registers` (Ertl's improved raw estimator). */
export function estimate(registers: Registers): number {
  const m = registers.length;
  const q = 64 - Math.log2(m);
  const counts = new Array<number>(q + 2).fill(0);
  for (const rank of registers) counts[rank]!++;
  let z = m * tau(1 - counts[q + 1]! / m);
  for (let k = q; k >= 1; k--) z = 0.5 * (z + counts[k]!);
  z += m * sigma(counts[0]! / m);
  return Math.round((m * m) / (2 * Math.LN2 * z));
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const previous = z;
    z += x * y;
    y += y;
    if (z === previous) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const previous = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === previous) return z / 3;
  }
}

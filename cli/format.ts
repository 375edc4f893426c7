import { stripVTControlCharacters } from 'node:util';
import pc from 'picocolors';
import { terminalSafe } from '../src/common/control-characters.ts';

/** The API's zone-less UTC timestamps (docs/api.md, Timestamps), shown as `2026-11-20 10:11:12 UTC`. */
export function formatTimestamp(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '-';
  return terminalSafe(`${value.replace('T', ' ').replace(/\.\d+$/, '').replace(/Z$/, '')} UTC`);
}

/**
 * Rows under a bold header, columns padded to their widest cell. Hand-written: a dozen
 * lines, where table libraries bring borders and wrapping this output does not want.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  // Measured as shown: a coloured cell's escape codes take no room.
  const width = (cell: string) => stripVTControlCharacters(cell).length;
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => width(row[column] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(Math.max(0, (widths[column] ?? 0) - width(cell)))))
      .join('  ')
      .trimEnd();
  return [pc.bold(line(header)), ...rows.map(line)].join('\n');
}

/** `value` as JSON: JSON.stringify escapes C0 controls, and DEL and C1 ones are escaped too (the same JSON value), so no output of the CLI acts on a terminal. */
export function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafe(JSON.stringify(value, null, 2))}\n`);
}

/** `1 file`, `2 files`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

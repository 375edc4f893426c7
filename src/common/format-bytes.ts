const units = ['B', 'kB', 'MB', 'GB', 'TB'];

/**
 * `1234567` → `1.2 MB`: SI units, as browsers and file managers show transfer sizes; one
 * decimal below 10, none above. The same text in every locale, so scripts can read it.
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

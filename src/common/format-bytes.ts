const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** One decimal below 10, none above; 9.96 is "10", not "10.0". */
const rounded = (value: number) => value.toFixed(value < 9.95 ? 1 : 0);

/**
 * `1234567` → `1.2 MiB`: binary units, as the limits and quotas are set (`MAX_TOTAL_BYTES`
 * 100 MiB, `MAX_USER_BYTES` 10 GiB), so that a limit reads as the number it was set to. A value
 * that rounds to 1024 of a unit is shown in the next one. The same text in every locale, so
 * scripts can read it.
 */
export function formatBytes(bytes: number): string {
  let unit = 0;
  while (unit < units.length - 1 && Number(rounded(bytes / 1024 ** unit)) >= 1024) unit += 1;
  return unit === 0 ? `${bytes} B` : `${rounded(bytes / 1024 ** unit)} ${units[unit]}`;
}

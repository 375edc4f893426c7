const bytesFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** 1536 -> "1.5 kB" (decimal units, as file managers show them). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${bytesFormat.format(value)} ${units[unit]}`;
}

/** The API's timestamps are UTC without a zone designator (`2026-01-02T03:04:05.678`). */
function parseApiTime(value: string): Date {
  return new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
}

/** A `<time>` showing the local date and time, with the exact UTC instant in `datetime`. */
export function timeElement(value: string | null | undefined): HTMLTimeElement | string {
  if (!value) return '—';
  const date = parseApiTime(value);
  const time = document.createElement('time');
  time.dateTime = date.toISOString();
  time.textContent = dateFormat.format(date);
  return time;
}

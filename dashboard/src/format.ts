const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

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

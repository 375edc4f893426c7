const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** To the second: deployments made a minute apart are told apart by it. */
const secondsFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The API's timestamps are UTC without a zone designator (`2026-01-02T03:04:05.678`). */
function parseApiTime(value: string): Date {
  return new Date(/[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`);
}

/** A `<time>` showing the local date and time (to the `seconds` when asked), with the exact UTC instant in `datetime`. */
export function timeElement(value: string | null | undefined, { seconds = false } = {}): HTMLTimeElement | string {
  if (!value) return '—';
  const date = parseApiTime(value);
  const time = document.createElement('time');
  time.dateTime = date.toISOString();
  time.textContent = (seconds ? secondsFormat : dateFormat).format(date);
  return time;
}

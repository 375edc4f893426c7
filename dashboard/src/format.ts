const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** To the second: deployments made a minute apart are told apart by it. */
const secondsFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** The API's timestamps are UTC without a zone designator (`2026-01-02T03:04:05.678`). */
export function parseApiTime(value: string): Date {
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

/**
 * Labelled times as `<dt>`/`<dd>` pairs, leaving out each one that reads as a time shown before
 * it (the same minute): a site's first deploy creates the site, changes it and makes its
 * deployment at once, and one time says so. Missing times are left out too.
 */
export function distinctTimes(times: readonly [label: string, value: string | null | undefined][]): HTMLElement[] {
  const shown = new Set<string>();
  return times.flatMap(([label, value]) => {
    if (!value) return [];
    const text = dateFormat.format(parseApiTime(value));
    if (shown.has(text)) return [];
    shown.add(text);
    const term = document.createElement('dt');
    term.textContent = label;
    const description = document.createElement('dd');
    description.append(timeElement(value));
    return [term, description];
  });
}

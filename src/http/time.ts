/** The API's timestamp form (docs/api.md, "Timestamps"): UTC `YYYY-MM-DDTHH:mm:ss.SSS`, no zone designator. */
export function timestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23);
}

/** Parses the API's timestamp form (read as UTC); undefined when it is not one. */
export function parseTimestamp(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/.test(value)) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Parses an HTTP-date (RFC 9110 IMF-fixdate and the obsolete forms Date.parse reads). */
export function parseHttpDate(value: string): number | undefined {
  if (!/GMT$/.test(value.trim())) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}

/** Which claim of a domain is current: its site's creation time, which a domain claimed again does not share. */
export async function currentClaims(db: D1Database, domains: readonly string[]): Promise<Map<string, number>> {
  const { results } = await db
    .prepare('SELECT domain, created FROM sites WHERE domain IN (SELECT value FROM json_each(?))')
    .bind(JSON.stringify([...new Set(domains)]))
    .all<{ domain: string; created: number }>();
  return new Map(results.map((row) => [row.domain, row.created]));
}

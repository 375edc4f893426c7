import type { Audience, IncomingEvent, LoggedEvent } from './event';

/** A logged event and whether this append wrote it (false: its message was logged before). */
export interface AppendedEvent extends LoggedEvent {
  isNew: boolean;
}

type EventRow = { id: number; type: string; data: string };

/**
 * The event log in the Durable Object's SQLite database. AUTOINCREMENT makes ids strictly
 * increasing and never reused, even after pruning empties the table; `sqlite_sequence`
 * remembers the last one issued.
 */
export class LogTable {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(`
      CREATE TABLE IF NOT EXISTS events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        created INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS events_by_created ON events (created);
    `);
    // A user's own events (src/events/event.ts, Audience): NULL for the service-wide stream's.
    const hasUserColumn = storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pragma_table_info('events') WHERE name = 'user_id'").one().n > 0;
    if (!hasUserColumn) storage.sql.exec('ALTER TABLE events ADD COLUMN user_id TEXT');
    storage.sql.exec('CREATE INDEX IF NOT EXISTS events_by_user ON events (user_id, id)');
    // The claim of its domain a site's event was made for (src/events/event.ts): NULL when not known.
    const hasClaimColumn = storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM pragma_table_info('events') WHERE name = 'claim'").one().n > 0;
    if (!hasClaimColumn) storage.sql.exec('ALTER TABLE events ADD COLUMN claim TEXT');
    // One site's stream (its members'): the service-wide events naming the domain, in order.
    storage.sql.exec("CREATE INDEX IF NOT EXISTS events_by_domain ON events (json_extract(data, '$.domain'), id) WHERE user_id IS NULL");
  }

  /**
   * Appends in order, in one transaction; a message appended before keeps its first id. (Looked
   * up first: an INSERT that conflicts would still use up an AUTOINCREMENT id.)
   */
  append(events: readonly IncomingEvent[], now: number): AppendedEvent[] {
    const { sql } = this.storage;
    return this.storage.transactionSync(() =>
      events.map((event) => {
        const logged = sql.exec<EventRow>('SELECT id, type, data FROM events WHERE message_id = ?', event.messageId).toArray()[0];
        if (logged) return { ...logged, isNew: false };
        const { id } = sql
          .exec<{ id: number }>(
            'INSERT INTO events (message_id, type, data, created, user_id, claim) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
            event.messageId,
            event.type,
            event.data,
            now,
            event.userId ?? null,
            event.claim ?? null,
          )
          .one();
        return { id, type: event.type, data: event.data, isNew: true };
      }),
    );
  }

  /** Up to `limit` of `audience`'s events after `cursor`, oldest first. */
  after(cursor: number, limit: number, audience: Audience): LoggedEvent[] {
    const { sql } = this.storage;
    if (audience === 'service') return sql.exec<EventRow>('SELECT id, type, data FROM events WHERE id > ? AND user_id IS NULL ORDER BY id LIMIT ?', cursor, limit).toArray();
    if ('domain' in audience) {
      // Of the site's current claim only: a domain unpublished and claimed again replays none of its previous owner's events,
      // those logged late included (they name their claim); one that names none goes by when it was logged.
      return sql
        .exec<EventRow>(
          `SELECT id, type, data FROM events WHERE json_extract(data, '$.domain') = ? AND user_id IS NULL AND id > ?
           AND (claim = ? OR ((claim IS NULL OR ? IS NULL) AND created >= ?)) ORDER BY id LIMIT ?`,
          audience.domain,
          cursor,
          audience.claim ?? null,
          audience.claim ?? null,
          audience.claimedAt ?? 0,
          limit,
        )
        .toArray();
    }
    return sql.exec<EventRow>('SELECT id, type, data FROM events WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?', audience.userId, cursor, limit).toArray();
  }

  /** The last id issued; 0 before the first event. */
  lastId(): number {
    const row = this.storage.sql.exec<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'events'").toArray()[0];
    return row?.seq ?? 0;
  }

  /** Every id up to this one has been pruned: a cursor below it has missed events that are gone. */
  horizon(): number {
    const row = this.storage.sql.exec<{ first: number | null }>('SELECT MIN(id) AS first FROM events').one();
    return row.first === null ? this.lastId() : row.first - 1;
  }

  /** Deletes events created before `cutoff` (ms since the epoch). */
  prune(cutoff: number): void {
    this.storage.sql.exec('DELETE FROM events WHERE created < ?', cutoff);
  }
}

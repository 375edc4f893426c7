-- Queue messages that spent their retries (each queue's dead_letter_queue in wrangler.toml), kept
-- for operators to read (docs/operating.md) and deleted by the daily cron after 30 days.
-- queue: the dead-letter queue the message arrived on (<queue>-dlq); body: the message as JSON;
-- sent_at: when it was first sent, kept_at: when it was kept, epoch milliseconds.
CREATE TABLE dead_letters (
  queue TEXT NOT NULL,
  message_id TEXT NOT NULL,
  sent_at INTEGER NOT NULL,
  kept_at INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (queue, message_id)
);
CREATE INDEX dead_letters_kept_at ON dead_letters (kept_at);

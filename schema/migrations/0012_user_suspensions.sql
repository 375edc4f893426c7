-- An operator's suspension of a user (`PUT /v2/users/<userId>/suspension`, scope admin): while a
-- row's `resumed_at` is NULL, every site of the user answers 451 and the user claims and changes
-- nothing. A lifted suspension keeps its row (`resumed_at` set) until the next one replaces it, so
-- an operator's retry of a lift cut short finds what is left to do. `change_id` names the events
-- of this suspension (`user-suspend`, `user-resume`) in the event log, which keeps each once.
-- Epoch milliseconds (UTC). Read joined to `sites` by `user_id` (its primary key) with every site record.
CREATE TABLE user_suspensions (
  user_id TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  suspended_at INTEGER NOT NULL,
  change_id TEXT NOT NULL,
  resumed_at INTEGER
);

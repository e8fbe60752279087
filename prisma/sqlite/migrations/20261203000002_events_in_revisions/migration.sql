-- SPEC §9: a revision and its event are one stored row. The event's id and type become columns of task_revisions
-- and its payload is rebuilt from the revision (its envelope around the snapshot, the task as committed: the same
-- JSON text outbox_events.payload held), so a create writes its task once instead of twice and two b-trees fewer.
-- `seq` numbers every revision (the rowid, AUTOINCREMENT: never reused); the relay and every reader of events read
-- the rows that have an event (revision 0, Begin, has none). SQLite cannot change a primary key in place, so the
-- table is rebuilt in this migration's transaction.
CREATE TABLE task_revisions_new (
  task_id       text NOT NULL,
  revision      integer NOT NULL,
  workspace_id  text NOT NULL,
  change        text NOT NULL,
  actor_id      text,
  snapshot      text NOT NULL,
  created_at    text NOT NULL,
  seq           integer PRIMARY KEY AUTOINCREMENT,
  event_id      text,
  event_type    text
);

-- Every event keeps its seq, id and type, on the revision it was written with (same task and revision number: both
-- rows were always written in one transaction).
INSERT INTO task_revisions_new (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, seq, event_id, event_type)
SELECT r.task_id, r.revision, r.workspace_id, r.change, r.actor_id, r.snapshot, r.created_at, e.seq, e.id, e.type
  FROM task_revisions r JOIN outbox_events e ON e.task_id = r.task_id AND e.revision = r.revision
 ORDER BY e.seq;

-- The sequence continues where the outbox's stopped (AUTOINCREMENT remembers numbers whose rows are gone too).
INSERT INTO sqlite_sequence (name, seq)
SELECT 'task_revisions_new', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'task_revisions_new');
UPDATE sqlite_sequence
   SET seq = MAX(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'outbox_events'), 0))
 WHERE name = 'task_revisions_new';

-- Revisions without an event (revision 0) are numbered after every event.
INSERT INTO task_revisions_new (task_id, revision, workspace_id, change, actor_id, snapshot, created_at)
SELECT r.task_id, r.revision, r.workspace_id, r.change, r.actor_id, r.snapshot, r.created_at
  FROM task_revisions r
 WHERE NOT EXISTS (SELECT 1 FROM outbox_events e WHERE e.task_id = r.task_id AND e.revision = r.revision)
 ORDER BY r.created_at, r.task_id, r.revision;

DROP TABLE task_revisions;
DROP TABLE outbox_events;
ALTER TABLE task_revisions_new RENAME TO task_revisions;

-- A task's history and its workspace (SPEC §4.1 step 2) are read by (task_id, revision); a second revision with the
-- same number (so a second event for it) is refused.
CREATE UNIQUE INDEX uniq_task_revisions_task_revision ON task_revisions (task_id, revision);
-- A workspace's events in seq order (its live stream, history pages, webhook planning, the console's recent events);
-- revisions without an event are not in it.
CREATE INDEX idx_task_revisions_workspace_events ON task_revisions (workspace_id, seq) WHERE event_id IS NOT NULL;

-- SPEC §9: a revision and its event are one stored row. The event's id and type become columns of task_revisions
-- and its payload is rebuilt from the revision (its envelope around the snapshot, the task as committed: the same
-- JSON text outbox_events.payload held), so a create writes its task once instead of twice and one heap row fewer.
-- `seq` numbers every revision from the outbox's own sequence, which continues; the relay and every reader of events
-- read the rows that have an event (revision 0, Begin, has none).
ALTER TABLE task_revisions ADD COLUMN seq bigint, ADD COLUMN event_id text, ADD COLUMN event_type text;

-- Every event keeps its seq, id and type, on the revision it was written with (same task and revision number: both
-- rows were always written in one transaction).
UPDATE task_revisions r SET seq = e.seq, event_id = e.id, event_type = e.type
  FROM outbox_events e WHERE e.task_id = r.task_id AND e.revision = r.revision;

-- The outbox's sequence becomes the revisions' (bigserial's name for task_revisions.seq), so numbering continues.
ALTER SEQUENCE outbox_events_seq_seq OWNED BY NONE;
ALTER SEQUENCE outbox_events_seq_seq RENAME TO task_revisions_seq_seq;
DROP TABLE outbox_events;

-- Revisions without an event (revision 0) are numbered after every event.
UPDATE task_revisions r SET seq = n.seq
  FROM (SELECT task_id, revision, nextval('task_revisions_seq_seq') AS seq
          FROM (SELECT task_id, revision FROM task_revisions WHERE seq IS NULL ORDER BY created_at, task_id, revision) o) n
 WHERE r.task_id = n.task_id AND r.revision = n.revision;

ALTER TABLE task_revisions ALTER COLUMN seq SET DEFAULT nextval('task_revisions_seq_seq'), ALTER COLUMN seq SET NOT NULL;
ALTER SEQUENCE task_revisions_seq_seq OWNED BY task_revisions.seq;
ALTER TABLE task_revisions DROP CONSTRAINT task_revisions_pkey;
ALTER TABLE task_revisions ADD CONSTRAINT task_revisions_pkey PRIMARY KEY (seq);

-- A task's history and its workspace (SPEC §4.1 step 2) are read by (task_id, revision); a second revision with the
-- same number (so a second event for it) is refused.
CREATE UNIQUE INDEX uniq_task_revisions_task_revision ON task_revisions (task_id, revision);
-- A workspace's events in seq order (its live stream, history pages, webhook planning, the console's recent events);
-- revisions without an event are not in it.
CREATE INDEX idx_task_revisions_workspace_events ON task_revisions (workspace_id, seq) WHERE event_id IS NOT NULL;

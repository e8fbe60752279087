-- SPEC §9: an event's id is derived from its task id and revision (a name-based UUID, the same on every read), so a
-- revision made from now on stores none: `event_id` is NULL on it and every reader derives the id; a revision
-- stored before keeps the random id it was delivered with. Which revisions have an event is now said by
-- `event_type` (set on every revision but Begin's, as `event_id` was until now): the index of a workspace's events
-- takes that predicate. Nothing is rewritten. SQLite.
DROP INDEX idx_task_revisions_workspace_events;
CREATE INDEX idx_task_revisions_workspace_events ON task_revisions (workspace_id, seq) WHERE event_type IS NOT NULL;

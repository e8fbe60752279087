-- SPEC §13: an operator follows a client's failed request to what became of it. Each creation operation keeps the
-- X-Request-Id of the request that began it; each history entry (a recovery takeover, an attempt that failed, an
-- Abort) the id of the request — or, for the recovery runtime, the id it generated for that takeover — it happened
-- in; each release the id of the request that made it. New columns are nullable (SPEC §12): rows written before
-- this have none. PostgreSQL.
ALTER TABLE creation_operations ADD COLUMN request_id text;
ALTER TABLE creation_history ADD COLUMN request_id text;
ALTER TABLE release_operations ADD COLUMN request_id text;

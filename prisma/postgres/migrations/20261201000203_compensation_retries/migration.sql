-- SPEC §4.4 (issue 17): a compensation that failed during Abort is `handed_to_cleanup`; the runtime retries it with
-- backoff until it succeeds. These columns say how often it was tried, when it is next due and why it last failed.
-- New columns are nullable (SPEC §12); the index holds only the steps waiting for cleanup. PostgreSQL.
ALTER TABLE creation_steps ADD COLUMN compensation_attempts integer;
ALTER TABLE creation_steps ADD COLUMN compensation_next_at timestamptz;
ALTER TABLE creation_steps ADD COLUMN compensation_error text;

CREATE INDEX idx_creation_steps_cleanup ON creation_steps (compensation_next_at) WHERE compensation_state = 'handed_to_cleanup';

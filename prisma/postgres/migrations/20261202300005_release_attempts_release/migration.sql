-- SPEC §13: the release history lists each release's replays and key conflicts. One index per migration. PostgreSQL.
CREATE INDEX idx_release_attempts_release ON release_attempts (release_id, created_at);

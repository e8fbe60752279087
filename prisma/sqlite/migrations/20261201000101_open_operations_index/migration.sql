-- Issue 16 (SPEC §4.3, §6). SQLite. Recovery claims only open operations whose lease expired
-- (`state IN (…) AND lease_expires_at < now ORDER BY lease_expires_at`), so only open operations are indexed: a
-- zero-step create inserts its operation already `completed` and writes no entry here, and a two-phase create's
-- last version (completed, no lease) leaves it. The index stays as small as the work in flight.
DROP INDEX idx_creation_operations_open;
CREATE INDEX idx_creation_operations_open ON creation_operations (lease_expires_at) WHERE state IN ('preparing', 'completing', 'aborting');

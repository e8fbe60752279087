-- SPEC §13 (issue 15): an identity's history lists every task that held the external id — read from the creation
-- operations that created them, by (workspace, external id), so the history of one id stays one index range in a
-- workspace with millions of creates. One index per migration. SQLite.
CREATE INDEX idx_creation_operations_external_id ON creation_operations (workspace_id, external_id) WHERE external_id IS NOT NULL;

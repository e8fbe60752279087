-- SPEC §13 (issue 15): an identity's history lists every release of the external id, by (workspace, external id).
-- One index per migration. SQLite.
CREATE INDEX idx_release_operations_external_id ON release_operations (workspace_id, external_id);

-- SPEC §13: the console finds the operations a request began by its request id, inside one workspace. Only rows that
-- have one are indexed. One index per migration. PostgreSQL.
CREATE INDEX idx_creation_operations_request ON creation_operations (workspace_id, request_id) WHERE request_id IS NOT NULL;

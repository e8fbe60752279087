-- SPEC §13: the console finds the operations a request began by its request id, inside one workspace. A request id
-- names one request, so the id alone finds its few rows and the workspace is checked on them (as
-- idx_creation_history_request does): every operation's entry is 37 bytes narrower than with the workspace id in
-- front of it, on the write of each create. Only rows that have one are indexed. PostgreSQL.
DROP INDEX idx_creation_operations_request;
CREATE INDEX idx_creation_operations_request ON creation_operations (request_id) WHERE request_id IS NOT NULL;

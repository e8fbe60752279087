-- SPEC §13: the console finds the operation a recovery takeover or a failed attempt belongs to by its request id.
-- Only history rows that have one are indexed (history is written on rare paths). One index per migration. SQLite.
CREATE INDEX idx_creation_history_request ON creation_history (request_id) WHERE request_id IS NOT NULL;

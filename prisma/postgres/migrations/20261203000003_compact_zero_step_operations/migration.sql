-- SPEC §9: a zero-step create's operation is a compact record. It is inserted already `completed` in the create's one
-- transaction (SPEC §4.3): no handle is ever made from it, so it stores no token (NULL), and no plan (NULL) when the
-- plan is the empty one (no start, no blocker, no agent profile); it is listed and shown like any other. Every other
-- operation keeps both. PostgreSQL.
ALTER TABLE creation_operations ALTER COLUMN plan DROP NOT NULL, ALTER COLUMN token_hash DROP NOT NULL;

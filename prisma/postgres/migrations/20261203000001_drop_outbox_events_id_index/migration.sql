-- SPEC §9: nothing reads an event by its id (the relay, webhook planning and every history read by seq, by workspace
-- and seq, or by task), and the id is a random UUID made with the event, so the unique index on it only cost every
-- event one more b-tree write. Delivered payloads keep their id; receivers still deduplicate on it. PostgreSQL.
DROP INDEX uniq_outbox_events_id;

-- SPEC §6, §13 (issue 15): a creation operation's history besides its steps — a recovery takeover (whose lease
-- expired when, who took over at which generation, until when), a step recovery reconciled, the start of an Abort
-- with its error. Written only on those rare paths: a create that finishes by itself writes nothing here, so the
-- create path costs what it did. Kept with the operation (operations are never deleted). SQLite.
CREATE TABLE creation_history (
  id            text PRIMARY KEY,
  operation_id  text NOT NULL REFERENCES creation_operations (id) ON DELETE CASCADE,
  at            text NOT NULL,
  kind          text NOT NULL,
  generation    integer NOT NULL,
  lease_owner   text,
  detail        text
);

CREATE INDEX idx_creation_history_operation ON creation_history (operation_id, at);

-- SPEC §9: a zero-step create's operation is a compact record. It is inserted already `completed` in the create's one
-- transaction (SPEC §4.3): no handle is ever made from it, so it stores no token (NULL), and no plan (NULL) when the
-- plan is the empty one (no start, no blocker, no agent profile); it is listed and shown like any other. Every other
-- operation keeps both. SQLite cannot drop a NOT NULL in
-- place: the table is rebuilt in this migration's transaction, every column and row kept, its indexes made again.
CREATE TABLE creation_operations_new (
  id                 text PRIMARY KEY,
  workspace_id       text NOT NULL,
  task_id            text NOT NULL,
  actor_id           text NOT NULL,
  external_id        text COLLATE BINARY,
  state              text NOT NULL,
  plan               text,
  token_hash         text,
  identity_released  integer NOT NULL DEFAULT 0,
  generation         integer NOT NULL DEFAULT 0,
  lease_owner        text,
  lease_expires_at   text,
  outcome            text,
  event_id           text,
  error              text,
  created_at         text NOT NULL,
  updated_at         text NOT NULL,
  finished_at        text,
  request_id         text
);
INSERT INTO creation_operations_new (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
  identity_released, generation, lease_owner, lease_expires_at, outcome, event_id, error, created_at, updated_at,
  finished_at, request_id)
SELECT id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, identity_released, generation,
  lease_owner, lease_expires_at, outcome, event_id, error, created_at, updated_at, finished_at, request_id
  FROM creation_operations;
DROP TABLE creation_operations;
ALTER TABLE creation_operations_new RENAME TO creation_operations;

CREATE INDEX idx_creation_operations_task ON creation_operations (task_id);
CREATE INDEX idx_creation_operations_workspace ON creation_operations (workspace_id, created_at);
CREATE INDEX idx_creation_operations_open ON creation_operations (lease_expires_at) WHERE state IN ('preparing', 'completing', 'aborting');
CREATE INDEX idx_creation_operations_external_id ON creation_operations (workspace_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX idx_creation_operations_request ON creation_operations (workspace_id, request_id) WHERE request_id IS NOT NULL;

-- Tether core schema (SQLite). SPEC §1, §2.2, §12.
-- Timestamps are ISO-8601 UTC text (sortable); booleans are 0/1. Ids are application-generated UUID strings kept as text so both dialects compare them the same way.
-- JSON documents are text: both dialects store and return them identically (parsed by the repositories).

CREATE TABLE workspaces (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  prefix         text NOT NULL,
  task_sequence  integer NOT NULL DEFAULT 0,
  root_path      text,
  created_at     text NOT NULL,
  updated_at     text NOT NULL
);
CREATE UNIQUE INDEX uniq_workspaces_prefix ON workspaces (prefix);

CREATE TABLE workflow_steps (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  position      integer NOT NULL,
  wip_limit     integer,
  is_done       integer NOT NULL DEFAULT 0,
  created_at    text NOT NULL
);
CREATE UNIQUE INDEX uniq_workflow_steps_position ON workflow_steps (workspace_id, position);

CREATE TABLE tasks (
  id                      text PRIMARY KEY,
  workspace_id            text NOT NULL REFERENCES workspaces (id),
  number                  integer NOT NULL,
  identifier              text NOT NULL,
  title                   text NOT NULL,
  description             text,
  step_id                 text NOT NULL REFERENCES workflow_steps (id),
  parent_id               text,
  archived_at             text,
  created_at              text NOT NULL,
  updated_at              text NOT NULL,
  revision                integer NOT NULL DEFAULT 0,
  creation_state          text NOT NULL,
  external_id             text COLLATE BINARY,
  external_id_settled_at  text
);
CREATE UNIQUE INDEX uniq_tasks_number ON tasks (workspace_id, number);
CREATE INDEX idx_tasks_step ON tasks (step_id);
CREATE INDEX idx_tasks_workspace_created ON tasks (workspace_id, created_at);
-- SPEC §2.2: the one index that settles identity. Binary collation, partial on held identities.
CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE BINARY) WHERE external_id IS NOT NULL;

CREATE TABLE creation_operations (
  id                 text PRIMARY KEY,
  workspace_id       text NOT NULL,
  task_id            text NOT NULL,
  actor_id           text NOT NULL,
  external_id        text COLLATE BINARY,
  state              text NOT NULL,
  plan               text NOT NULL,
  token_hash         text NOT NULL,
  identity_released  integer NOT NULL DEFAULT 0,
  generation         integer NOT NULL DEFAULT 0,
  lease_owner        text,
  lease_expires_at   text,
  outcome            text,
  event_id           text,
  error              text,
  created_at         text NOT NULL,
  updated_at         text NOT NULL,
  finished_at        text
);
CREATE INDEX idx_creation_operations_task ON creation_operations (task_id);
CREATE INDEX idx_creation_operations_open ON creation_operations (state, lease_expires_at);
CREATE INDEX idx_creation_operations_workspace ON creation_operations (workspace_id, created_at);

CREATE TABLE creation_steps (
  operation_id        text NOT NULL REFERENCES creation_operations (id) ON DELETE CASCADE,
  step_index          integer NOT NULL,
  kind                text NOT NULL,
  params              text NOT NULL,
  state               text NOT NULL,
  attempts            integer NOT NULL DEFAULT 0,
  evidence            text,
  error               text,
  compensation_state  text,
  lease_expires_at    text,
  started_at          text,
  finished_at         text,
  PRIMARY KEY (operation_id, step_index)
);

-- SPEC §7: replay evidence only; retained forever (no foreign keys, survives workspace deletion).
CREATE TABLE release_operations (
  id                text PRIMARY KEY,
  workspace_id      text NOT NULL,
  idempotency_key   text NOT NULL,
  request_hash      text NOT NULL,
  actor_id          text NOT NULL,
  source            text NOT NULL,
  external_id       text COLLATE BINARY NOT NULL,
  holder_task_id    text,
  result_status     integer NOT NULL,
  result_body       text,
  created_at        text NOT NULL
);
CREATE UNIQUE INDEX uniq_release_operations_key ON release_operations (workspace_id, idempotency_key);
CREATE INDEX idx_release_operations_created ON release_operations (workspace_id, created_at);

-- SPEC §9: ordered, retained history. Also the "retained history" used to resolve a deleted parent's workspace.
CREATE TABLE task_revisions (
  task_id       text NOT NULL,
  revision      integer NOT NULL,
  workspace_id  text NOT NULL,
  change        text NOT NULL,
  actor_id      text,
  snapshot      text NOT NULL,
  created_at    text NOT NULL,
  PRIMARY KEY (task_id, revision)
);

CREATE TABLE outbox_events (
  seq           integer PRIMARY KEY AUTOINCREMENT,
  id            text NOT NULL,
  workspace_id  text NOT NULL,
  task_id       text NOT NULL,
  revision      integer NOT NULL,
  type          text NOT NULL,
  payload       text NOT NULL,
  created_at    text NOT NULL
);
CREATE UNIQUE INDEX uniq_outbox_events_id ON outbox_events (id);
CREATE UNIQUE INDEX uniq_outbox_events_task_revision ON outbox_events (task_id, revision);
CREATE INDEX idx_outbox_events_workspace ON outbox_events (workspace_id, seq);

CREATE TABLE users (
  id             text PRIMARY KEY,
  email          text NOT NULL,
  name           text,
  password_hash  text,
  is_admin       integer NOT NULL DEFAULT 0,
  created_at     text NOT NULL
);
CREATE UNIQUE INDEX uniq_users_email ON users (email);

CREATE TABLE memberships (
  user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  role          text NOT NULL,
  created_at    text NOT NULL,
  PRIMARY KEY (user_id, workspace_id)
);

CREATE TABLE sessions (
  id_hash     text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token  text NOT NULL,
  expires_at  text NOT NULL,
  created_at  text NOT NULL
);

CREATE TABLE api_tokens (
  id           text PRIMARY KEY,
  name         text NOT NULL,
  secret_hash  text NOT NULL,
  scopes       text NOT NULL,
  created_by   text,
  created_at   text NOT NULL,
  revoked_at   text
);

CREATE TABLE api_token_grants (
  token_id      text NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  PRIMARY KEY (token_id, workspace_id)
);

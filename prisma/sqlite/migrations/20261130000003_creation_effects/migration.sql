-- The effects of creation steps (SPEC §5) and the agent launch pipeline (SPEC §4.1 step 10). SQLite.
-- Every effect row made by a step carries (operation_id, step_index) under a unique index: re-running a step after
-- a crash finds its own row instead of making a second one. Tasks are referenced by plain columns (no foreign
-- keys): Abort removes the task row and compensation removes these rows, in that protocol's own order.

CREATE TABLE repositories (
  id              text PRIMARY KEY,
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name            text NOT NULL,
  path            text NOT NULL,
  default_branch  text NOT NULL,
  created_at      text NOT NULL
);
CREATE UNIQUE INDEX uniq_repositories_path ON repositories (workspace_id, path);

CREATE TABLE attachments (
  id                  text PRIMARY KEY,
  workspace_id        text NOT NULL,
  filename            text NOT NULL,
  content_type        text NOT NULL,
  size_bytes          integer NOT NULL,
  sha256              text NOT NULL,
  storage_path        text NOT NULL,
  uploaded_by         text NOT NULL,
  task_id             text,
  claim_operation_id  text,
  claim_step          integer,
  claimed_at          text,
  created_at          text NOT NULL
);
CREATE INDEX idx_attachments_task ON attachments (task_id);
CREATE INDEX idx_attachments_claim ON attachments (claim_operation_id, claim_step);

CREATE TABLE remote_contributions (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL,
  url           text NOT NULL,
  task_id       text NOT NULL,
  operation_id  text NOT NULL,
  step_index    integer NOT NULL,
  created_at    text NOT NULL
);
-- SPEC §5: a normalized URL is associated with at most one task per workspace.
CREATE UNIQUE INDEX uniq_remote_contributions_url ON remote_contributions (workspace_id, url);
CREATE UNIQUE INDEX uniq_remote_contributions_step ON remote_contributions (operation_id, step_index);

CREATE TABLE agent_profiles (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  runner        text NOT NULL,
  config        text NOT NULL,
  created_at    text NOT NULL
);
CREATE UNIQUE INDEX uniq_agent_profiles_name ON agent_profiles (workspace_id, name);

CREATE TABLE agent_sessions (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL,
  task_id       text NOT NULL,
  profile_id    text,
  operation_id  text,
  step_index    integer,
  state         text NOT NULL,
  created_at    text NOT NULL,
  updated_at    text NOT NULL,
  started_at    text
);
CREATE UNIQUE INDEX uniq_agent_sessions_step ON agent_sessions (operation_id, step_index);
CREATE INDEX idx_agent_sessions_task ON agent_sessions (task_id);

CREATE TABLE launch_intents (
  id                text PRIMARY KEY,
  workspace_id      text NOT NULL,
  task_id           text NOT NULL,
  session_id        text,
  profile_id        text,
  operation_id      text NOT NULL,
  step_index        integer NOT NULL,
  kind              text NOT NULL,
  state             text NOT NULL,
  blocked_by        text NOT NULL,
  attempts          integer NOT NULL DEFAULT 0,
  lease_owner       text,
  lease_expires_at  text,
  last_error        text,
  created_at        text NOT NULL,
  updated_at        text NOT NULL,
  launched_at       text
);
CREATE UNIQUE INDEX uniq_launch_intents_step ON launch_intents (operation_id, step_index);
CREATE INDEX idx_launch_intents_state ON launch_intents (state);
CREATE INDEX idx_launch_intents_task ON launch_intents (task_id);

-- One row per launch handed to a runner: the "exactly one launch" the crash matrix counts.
CREATE TABLE agent_launches (
  id          text PRIMARY KEY,
  intent_id   text NOT NULL,
  session_id  text NOT NULL,
  task_id     text NOT NULL,
  runner      text NOT NULL,
  detail      text,
  created_at  text NOT NULL
);
CREATE UNIQUE INDEX uniq_agent_launches_intent ON agent_launches (intent_id);

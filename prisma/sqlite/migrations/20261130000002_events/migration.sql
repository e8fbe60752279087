-- SPEC §9: delivering the outbox. SQLite.
-- Live subscribers need no table (they resume from `outbox_events.seq`); webhooks keep all their state here so a
-- restart, or a second server process, loses nothing: the planning cursor, the claim (lease) and every attempt.

-- A per-workspace webhook. No foreign key to workspaces: workspace deletion sets `final_seq` so the deletion's own
-- `task.deleted` events still go out, and delivery history outlives the workspace (SPEC §8).
CREATE TABLE webhooks (
  id                text PRIMARY KEY,
  workspace_id      text NOT NULL,
  url               text NOT NULL,
  -- Needed in clear to sign each body (HMAC-SHA256); returned once at creation, never listed or logged.
  secret            text NOT NULL,
  description       text,
  -- Every event with seq <= cursor_seq has been planned as a delivery (or was before the webhook existed).
  cursor_seq        integer NOT NULL DEFAULT 0,
  -- Set when the workspace is deleted: nothing after this seq is planned.
  final_seq         integer,
  -- The claim: one process at a time plans and sends for a webhook, in seq order.
  lease_owner       text,
  lease_expires_at  text,
  created_at        text NOT NULL,
  disabled_at       text
);
CREATE INDEX idx_webhooks_workspace ON webhooks (workspace_id);

-- One row per (webhook, event): the durable queue and its outcome.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_seq        integer NOT NULL,
  event_id         text NOT NULL,
  state            text NOT NULL,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  text NOT NULL,
  last_status      integer,
  last_error       text,
  created_at       text NOT NULL,
  delivered_at     text
);
CREATE UNIQUE INDEX uniq_webhook_deliveries_event ON webhook_deliveries (webhook_id, event_seq);
CREATE INDEX idx_webhook_deliveries_state ON webhook_deliveries (webhook_id, state, event_seq);

-- One row per HTTP attempt, written before the request is sent (a crash mid-request still leaves its trace).
CREATE TABLE webhook_attempts (
  delivery_id  text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt      integer NOT NULL,
  webhook_id   text NOT NULL,
  instance_id  text NOT NULL,
  outcome      text NOT NULL,
  status       integer,
  error        text,
  duration_ms  integer,
  started_at   text NOT NULL,
  finished_at  text,
  PRIMARY KEY (delivery_id, attempt)
);

-- SPEC §7, §13: a release request that did not make a release of its own — a replay of a stored result (same key,
-- same request) or an idempotency key reused for a different request (409) — is kept next to the release it met,
-- so the release history shows them: who sent it, when, through which channel, with which request id, and (for a
-- conflict) which external id the other request named. Written only on those paths, after the answer is decided;
-- audit only, retained forever, no foreign keys (release operations outlive their workspace). PostgreSQL.
CREATE TABLE release_attempts (
  id            text PRIMARY KEY,
  release_id    text NOT NULL,
  workspace_id  text NOT NULL,
  kind          text NOT NULL,
  actor_id      text NOT NULL,
  source        text NOT NULL,
  external_id   text COLLATE "C" NOT NULL,
  request_id    text,
  created_at    timestamptz NOT NULL
);

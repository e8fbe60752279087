-- The console's first-run onboarding (issue 8, SPEC §11). SQLite.
-- When no user exists, the server prints a one-time setup URL on start; only sha256 of its token is kept here.
-- A row is spent (`used_at`) when the first admin is created; a restart replaces any unspent row.
CREATE TABLE setup_tokens (
  token_hash  text PRIMARY KEY,
  created_at  text NOT NULL,
  used_at     text
);

-- SPEC §11: API tokens may expire, and say when they were last used. Both nullable (SPEC §12): a token made before
-- this never expires and has not been seen yet. `expires_at` is checked on every verification (an expired token is
-- refused like a revoked one); `last_used_at` is written by each server process at most once a minute per token,
-- never by the request itself (domain/tokens/token-usage.ts). PostgreSQL.
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz;

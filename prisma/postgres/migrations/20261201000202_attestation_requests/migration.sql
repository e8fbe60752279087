-- SPEC §12 (issue 17): readiness is re-attested on demand, without a restart. `tether attest`, the console's
-- button and a legacy resolution each add a row; every server process polls the newest one and re-attests when it
-- is newer than what it has seen. Rows also say who asked, when and through which channel. PostgreSQL.
CREATE TABLE attestation_requests (
  id            text PRIMARY KEY,
  actor_id      text NOT NULL,
  source        text NOT NULL,
  requested_at  timestamptz NOT NULL
);

CREATE INDEX idx_attestation_requests_at ON attestation_requests (requested_at);

-- SPEC §11: keys nobody has failed with for a day are forgotten (auth/sign-in-throttle.ts sweeps them at each
-- successful sign-in), found by this index rather than a scan of every key an attacker made up. SQLite.
CREATE INDEX idx_sign_in_throttles_last_failure ON sign_in_throttles (last_failure_at);

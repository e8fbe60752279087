-- SPEC §11: console sign-in is throttled per account and per client address, and every server process sees the same
-- counts, so they live here. One row per throttled key: `key` is a digest of `account:<email as typed, normalized>`
-- or `address:<client address>` (never the email or address itself); `failures` counts attempts since the key was
-- last forgotten, `last_failure_at` is when the latest was made, and `version` makes each update a compare-and-set
-- (auth/sign-in-throttle.ts). A key exists whether or not an account has that email. SQLite.
CREATE TABLE sign_in_throttles (
  key              text PRIMARY KEY,
  failures         integer NOT NULL,
  last_failure_at  text NOT NULL,
  version          integer NOT NULL
);

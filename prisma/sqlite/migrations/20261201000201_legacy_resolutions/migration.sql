-- SPEC §12 (issue 17): how an operator resolved a legacy identity row (settled as it is, or released), by whom,
-- when and through which channel (`cli`, `console`). Audit only: retained forever, no foreign keys. SQLite.
CREATE TABLE legacy_resolutions (
  id            text PRIMARY KEY,
  workspace_id  text NOT NULL,
  task_id       text NOT NULL,
  external_id   text COLLATE BINARY NOT NULL,
  action        text NOT NULL,
  actor_id      text NOT NULL,
  source        text NOT NULL,
  created_at    text NOT NULL
);

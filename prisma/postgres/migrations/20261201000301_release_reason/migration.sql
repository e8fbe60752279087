-- SPEC §7, §13 (issue 15): a release may say why. The operator's reason is stored with the release record and shown
-- in the identity's history; it is an annotation, not part of the request hash (docs/API.md, Release). New columns
-- are nullable (SPEC §12): every release before this one has no reason. PostgreSQL.
ALTER TABLE release_operations ADD COLUMN reason text;

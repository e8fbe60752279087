-- SPEC §13: the console finds the operations a request began by its request id, inside one workspace: the search is
-- an OR of that id, the operations whose history names it and (for an id-like search) the operation id, which
-- PostgreSQL never answered from idx_creation_operations_request — it reads the workspace's range of
-- idx_creation_operations_workspace and checks each row, as every other filter of that list does. So the index is
-- dropped: every create wrote an entry into it that no query read. SQLite, which read it, searches the same way now.
-- SQLite.
DROP INDEX idx_creation_operations_request;

// A process that commits enough for its connection to get a checkpointing thread, then closes the database and
// says so: the close must not leave the process with nothing to wait on before it returns (sqlite-checkpoint.test.ts).
import { SqliteDb } from '../../../src/server/db/drivers/sqlite';
import { START_AFTER_COMMITS } from '../../../src/server/db/drivers/sqlite-checkpointer';

const file = process.argv[2]!;
const db = new SqliteDb(`file:${file}`, file);
await db.exec('CREATE TABLE t (n integer)');
for (let i = 0; i <= START_AFTER_COMMITS; i++) await db.transaction((tx) => tx.run('INSERT INTO t VALUES ($1)', [i]));
while (db.checkpointer!.done.checkpoints === 0) await new Promise((r) => setTimeout(r, 20));
await db.close();
console.log('closed');

// A real server process (API only, no Next) for multi-process tests, started from its bundle (tests/support/processes.ts).
// Prints one line `READY <url>` when listening. DATABASE_URL chooses the database.
import { startServer } from '../../src/server/main';

const server = await startServer({ pages: false, port: 0, host: '127.0.0.1', log: () => {} });
process.stdout.write(`READY ${server.url}\n`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

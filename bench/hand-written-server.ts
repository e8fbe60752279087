// The hand-written endpoint (bench/lib/hand-written.ts) as a process of its own, started by the bench like Tether's
// servers: DATABASE_URL, PORT, HOST, and what it serves — BENCH_TOKEN_SHA256 (hex), BENCH_WORKSPACE (JSON: id, stepId,
// prefix), BENCH_POOL_SIZE.
import { createHandWrittenServer } from './lib/hand-written';

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const server = createHandWrittenServer({
  databaseUrl: env('DATABASE_URL'),
  tokenSha256: env('BENCH_TOKEN_SHA256'),
  workspace: JSON.parse(env('BENCH_WORKSPACE')) as { id: string; stepId: string; prefix: string },
  poolSize: Number(env('BENCH_POOL_SIZE')),
});
const port = Number(env('PORT'));
const host = process.env.HOST ?? '127.0.0.1';
server.listen(port, host, () => console.log(`hand-written listening on http://${host}:${port}`));
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(0));

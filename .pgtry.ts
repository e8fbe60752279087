import { startPostgres, createDatabase } from '/work/main/tests/support/postgres-server';
import { spawn } from 'node:child_process';
const s = await startPostgres();
const url = await createDatabase(s.url, 'tether_try');
const withPw = url.replace('postgres@', 'postgres:hunter2@');
const child = spawn('npx', ['tsx', 'src/server/main.ts'], { cwd: '/work/main', env: { ...process.env, DATABASE_URL: withPw, PORT: '3918', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
let out = '';
child.stdout.on('data', (d) => (out += d));
child.stderr.on('data', (d) => (out += d));
for (let i = 0; i < 60; i++) {
  await new Promise((r) => setTimeout(r, 500));
  try { const r = await fetch('http://127.0.0.1:3918/api/health'); console.log(r.status, await r.text()); break; } catch {}
}
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
console.log(out);
console.log('password leaked?', out.includes('hunter2'));
s.stop();

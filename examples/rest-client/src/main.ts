// `npm start`: runs the scenario against the server named by TETHER_URL and prints the report as JSON.
import { connect } from './client';
import { runScenario } from './scenario';

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
if (!env.TETHER_WORKSPACE) throw new Error('set TETHER_WORKSPACE');

const report = await runScenario(connect(env), env.TETHER_WORKSPACE, env.TETHER_TICKET ?? `PROJ-${Date.now()}`);
console.log(JSON.stringify(report));

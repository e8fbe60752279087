// `npm start`: runs the flow against the server named by TETHER_URL and prints the report as JSON.
import { runFlow } from './flow';
import { connect } from './tether';

// Read through globalThis so this file type-checks in browser projects (no Node types) as well as in Node ones.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
if (!env.TETHER_WORKSPACE) throw new Error('set TETHER_WORKSPACE');

const report = await runFlow(connect(env), env.TETHER_WORKSPACE, env.TETHER_TICKET ?? `PROJ-${Date.now()}`);
console.log(JSON.stringify(report));

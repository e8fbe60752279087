// A real server-side create in its own process, killed by SIGKILL at one failpoint (the crash matrix, SPEC §6).
// Env: DATABASE_URL, TETHER_LEASE_MS, CRASH_FAILPOINT, CRASH_MATCH, CREATE_WORKSPACE, CREATE_BODY (JSON).
// Prints the outcome as JSON if the failpoint never fired.
import { loadConfig } from '../../src/server/config';
import { createTask } from '../../src/server/domain/tasks/create-task';
import { Failpoints } from '../../src/server/failpoints';
import { createServices } from '../../src/server/create-services';
import { tokenActor } from './fixtures';

const services = createServices({
  config: { ...loadConfig(), failpointsEnabled: true },
  failpoints: new Failpoints(true),
});
await services.readiness.refresh(services.store.driver);
services.failpoints.arm({ name: process.env.CRASH_FAILPOINT!, action: 'crash', match: process.env.CRASH_MATCH });
const outcome = await createTask(
  services,
  tokenActor([process.env.CREATE_WORKSPACE!]),
  JSON.parse(process.env.CREATE_BODY!),
);
process.stdout.write(JSON.stringify({ kind: outcome.kind, taskId: outcome.task.id }));
await services.store.driver.close();

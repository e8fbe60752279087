// The app router: one router per noun (STYLE naming). The console imports only `type AppRouter`.
import { adminRouter } from './routers/admin';
import { cleanupRouter } from './routers/cleanup';
import { consoleRouter } from './routers/console';
import { sessionRouter } from './routers/session';
import { eventRouter } from './routers/event';
import { identityRouter } from './routers/identity';
import { taskRouter } from './routers/task';
import { workspaceRouter } from './routers/workspace';
import { router } from './trpc';

export const appRouter = router({
  task: taskRouter,
  workspace: workspaceRouter,
  event: eventRouter,
  session: sessionRouter,
  console: consoleRouter,
  admin: adminRouter,
  identity: identityRouter,
  cleanup: cleanupRouter,
});

export type AppRouter = typeof appRouter;

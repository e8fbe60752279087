// The app router: one router per noun (STYLE naming). The console imports only `type AppRouter`.
import { taskRouter } from './routers/task';
import { workspaceRouter } from './routers/workspace';
import { router } from './trpc';

export const appRouter = router({
  task: taskRouter,
  workspace: workspaceRouter,
});

export type AppRouter = typeof appRouter;

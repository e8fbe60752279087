// Next, for the console pages: started by main.ts after the services, and handed every request the API does not
// answer (app.ts). The one place that writes the environment, and only Next's own variables, before Next loads.
import type { PageHandler } from './http/server';
import { PROJECT_ROOT } from './project-root';

/** React and Next pick their production builds from NODE_ENV; Next's telemetry stays off (nothing leaves the
 *  machine unasked; also set in next.config). */
function prepareNextEnvironment(dev: boolean): void {
  const env = process.env as Record<string, string | undefined>;
  env.NODE_ENV ??= dev ? 'development' : 'production';
  env.NEXT_TELEMETRY_DISABLED ??= '1';
}

export async function startNext(dev: boolean): Promise<{ handle: PageHandler; close(): Promise<void> }> {
  // Only after the services have read the config, so an unset NODE_ENV still lets tests enable failpoints.
  prepareNextEnvironment(dev);
  const { default: next } = await import('next');
  const app = next({ dev, dir: PROJECT_ROOT });
  await app.prepare();
  const handle = app.getRequestHandler();
  return { handle: (req, res) => handle(req, res), close: () => app.close() };
}

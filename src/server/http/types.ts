// The contract between the custom server (src/server/app.ts) and each machine-facing API module.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../services';

/** Handles one request under its prefix. Bodies are read by the handler (with the size limit in ./body.ts). */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse, services: Services) => Promise<void>;

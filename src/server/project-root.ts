// The project's folder (package.json, prisma/, .next/), for the files the server reads at run time: the migrations
// (db/schema/migrate.ts) and Next's build (main.ts). Two levels above this module wherever it runs — src/server/ under tsx,
// and dist/server/, where scripts/build-server.mjs writes the bundle `npm start` serves.
import { resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

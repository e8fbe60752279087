#!/usr/bin/env node
// The `tether` admin command: runs the TypeScript CLI through tsx's ESM loader (no build step).
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../src/cli/main.ts');
await main(process.argv);

#!/usr/bin/env node
// `npx rema ...`: runs the TypeScript command line (src/cli/main.ts) through tsx's loader, no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
await main(process.argv);

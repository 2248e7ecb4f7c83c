// Test helper, imported before any WASM backend import: the WebAssembly kernels are committed as a generated
// module, and a checkout without it must fail with the command that builds it, not with a bare resolve error.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const WASM_MODULES = resolve(import.meta.dirname, '../../src/engine/kernels/wasm/modules.generated.ts');

if (!existsSync(WASM_MODULES)) {
  throw new Error(`${WASM_MODULES} is missing: build the WebAssembly kernels with \`npm run build:wasm\``);
}

// AssemblyScript entry: the WebAssembly SIMD kernels the WasmBackend calls (built by `npm run build:wasm`).
export { packB, matmul } from './matmul';
export { attention, attentionBackward } from './attention';
export { logprobChunk, dlogitsChunk } from './logprob';

// The rank-2 LoRA with B·A = 0 the golden suites run with: the same one the GPU self-test uses (engine/gpu-check).
export { cancellingAdapter } from '../../src/engine/gpu-check/cancelling-adapter.ts';

// The process-wide choices of one `rema` command (--simd, --threads, --weight-dtype, --data-dir) as one object:
// main.ts builds it once from the flags and hands it to every command, which passes it on to openBackend,
// loadModel and the data-folder lookup. Scripts and tests build their own; two objects never share state.

/** Which WebAssembly build the wasm backend runs: 'auto' = relaxed SIMD (fused multiply-add) where this Node
 *  validates it (bin/rema.mjs enables it on Node 20), else plain SIMD; 'relaxed' / 'plain' pin one build (the two
 *  round differently, so a recorded run reproduces bit for bit only on the build it ran on). */
export type SimdChoice = 'auto' | 'relaxed' | 'plain';
export const SIMD_CHOICES: readonly SimdChoice[] = ['auto', 'relaxed', 'plain'];

/** Threads of the wasm backend: 'auto' = 2 when the machine has at least 2 cores, else 1 (large matmuls split
 *  over a helper thread; results are bit-identical either way); '1' or '2' pins it. */
export type ThreadsChoice = 'auto' | '1' | '2';
export const THREADS_CHOICES: readonly ThreadsChoice[] = ['auto', '1', '2'];

/** Storage of the frozen base weights: auto (f16 for LoRA on a WebGPU device with shader-f16, else f32:
 *  engine-policy.ts resolveBaseDtype), f32, or f16 / bf16 halves on the wasm backend (f16 also on WebGPU with
 *  shader-f16); halves for LoRA only. */
export type WeightDtypeChoice = 'auto' | 'f32' | 'f16' | 'bf16';
export const WEIGHT_DTYPE_CHOICES: readonly WeightDtypeChoice[] = ['auto', 'f32', 'f16', 'bf16'];

export interface RuntimeChoices {
  /** --simd: the WebAssembly build every wasm backend of the command opens with */
  readonly simd: SimdChoice;
  /** --threads: the thread count of every wasm backend */
  readonly threads: ThreadsChoice;
  /** --weight-dtype: the storage of the frozen base weights of every model loaded */
  readonly weightDtype: WeightDtypeChoice;
  /** --data-dir: the folder of the sets that are not shipped; undefined = $REMA_DATA_DIR, read at each lookup */
  readonly dataDir?: string;
}

/** The flags as the parser hands them over (strings; undefined = not given). */
export interface RuntimeFlags {
  simd?: string;
  threads?: string;
  weightDtype?: string;
  dataDir?: string;
}

function choice<T extends string>(flag: string, value: string | undefined, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value))
    throw new Error(`${flag}: "${value}" is not one of ${choices.join(', ')}`);
  return value as T;
}

/** The choices of these flags, each defaulting to 'auto' (dataDir to none); throws naming the flag of a bad value. */
export function runtimeChoices(flags: RuntimeFlags = {}): RuntimeChoices {
  return {
    simd: choice('--simd', flags.simd, SIMD_CHOICES, 'auto'),
    threads: choice('--threads', flags.threads, THREADS_CHOICES, 'auto'),
    weightDtype: choice('--weight-dtype', flags.weightDtype, WEIGHT_DTYPE_CHOICES, 'auto'),
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  };
}

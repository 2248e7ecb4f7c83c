// Known-good hub models, offline: each one's config.json (as published on the hub), repo id, licence, chat
// template family and download size, shipped in this folder so the planner can size a model and the CLI / page
// can offer it by name before anything is downloaded. Each file's `sources` says where its values were checked.
// A catalog name is accepted wherever a hub id is (`--set model=qwen2.5-0.5b-instruct`).
import llama32_1b from './llama-3.2-1b-instruct.json';
import qwen25_05b from './qwen2.5-0.5b-instruct.json';
import qwen25_15b from './qwen2.5-1.5b-instruct.json';
import qwen25math_15b from './qwen2.5-math-1.5b-instruct.json';
import smollm2_135m from './smollm2-135m-instruct.json';
import smollm2_360m from './smollm2-360m-instruct.json';
import smollm2_17b from './smollm2-1.7b-instruct.json';

export interface CatalogModel {
  /** short name, e.g. "qwen2.5-0.5b-instruct" */
  name: string;
  /** Hugging Face repo id */
  repo: string;
  /** SPDX-like licence id as the model card states it ("apache-2.0", "llama3.2") */
  license: string;
  /** chat template family of tokenizer_config.json: "chatml" (<|im_start|>role ... <|im_end|>) or "llama3" */
  chatTemplate: 'chatml' | 'llama3';
  /** dtype of the published safetensors */
  weightsDtype: 'bfloat16';
  /** parameters implied by `config` (checked by tests/data/models/catalog.test.ts) */
  parameters: number;
  /** bytes of the published safetensors (tensor data in `weightsDtype`; headers of a few tens of KB aside) */
  downloadBytes: number;
  /** where each value was checked */
  sources: string[];
  /** the model's config.json */
  config: Record<string, unknown>;
}

export const MODEL_CATALOG: readonly CatalogModel[] = [
  qwen25_05b,
  qwen25_15b,
  qwen25math_15b,
  smollm2_135m,
  smollm2_360m,
  smollm2_17b,
  llama32_1b,
] as CatalogModel[];

/** The catalog entry for a short name or a repo id (case-insensitive; a repo id may carry @revision). */
export function findCatalogModel(nameOrRepo: string): CatalogModel | null {
  const key = nameOrRepo.split('@')[0].toLowerCase();
  return MODEL_CATALOG.find((m) => m.name === key || m.repo.toLowerCase() === key) ?? null;
}

/** The hub repo id a model spec names: a catalog name becomes its repo (keeping @revision), anything else is itself. */
export function resolveCatalogRepo(spec: string): string {
  const entry = findCatalogModel(spec);
  if (!entry) return spec;
  const at = spec.indexOf('@');
  return at < 0 ? entry.repo : entry.repo + spec.slice(at);
}

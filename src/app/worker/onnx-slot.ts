// The page's one loaded ONNX model (a frozen agent's, or the VRP baseline's): opened on demand for a source and
// execution provider, kept while they stay the same (a reset or a second evaluation reuses the open session),
// and freed when replaced unless a trainer still holds it. Load errors say what an ONNX model folder must hold.
import type { Policy } from '../../engine/policy/policy.ts';
import type { FileSource } from '../../util/file-source.ts';
import { openOnnxModel, type PageOnnxAgent } from './onnx-agent.ts';
import type { OrtLoader, WantedEp } from './onnx-runtime.ts';
import type { OnnxModelSpec } from './protocol.ts';

const LAYOUT =
  "An ONNX model folder has the hub's onnx-community layout: config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx (a decoder exported with its KV cache, e.g. by Optimum or scripts/onnx/export_hf_onnx.py), plus onnx/model.onnx_data when the weights are stored outside the graph.";

/** Same key, same ONNX model. A local folder is known by its name, file count and bytes. */
export function onnxKey(spec: OnnxModelSpec, ep: WantedEp): string {
  if (spec.kind !== 'local')
    return `${ep}:${spec.kind}:${spec.kind === 'hub' ? `${spec.repo}@${spec.revision}` : spec.name}`;
  let bytes = 0;
  for (const f of spec.files.values()) bytes += f.size;
  return `${ep}:local:${spec.name}:${spec.files.size}:${bytes}`;
}

export interface OnnxRequest {
  spec: OnnxModelSpec;
  ep: WantedEp;
  source: FileSource;
  /** how the page names the model, e.g. "tiny-rema" or "hf://org/name" */
  name: string;
  loadOrt: OrtLoader;
  /** called before a model is actually loaded (not for a kept one): a download can take a while */
  onLoadStart(): void;
  onProgress(file: string, loaded: number, total: number | null): void;
  /** whether a policy is still used (by the running trainer), so it must not be freed yet */
  inUse(policy: Policy): boolean;
}

export class OnnxModelSlot {
  private current: { key: string; model: PageOnnxAgent } | null = null;

  get model(): PageOnnxAgent | null {
    return this.current?.model ?? null;
  }

  async get(r: OnnxRequest): Promise<PageOnnxAgent> {
    const key = onnxKey(r.spec, r.ep);
    if (this.current?.key === key) return this.current.model;
    r.onLoadStart();
    let model: PageOnnxAgent;
    try {
      model = await openOnnxModel(r.source, r.name, r.ep, r.loadOrt, r.onProgress);
    } catch (e) {
      let message = (e as Error).message;
      // "<folder>: no ONNX model ..." would repeat the name the sentence already gives
      if (message.startsWith(`${r.source.name}: `)) message = message.slice(r.source.name.length + 2);
      const layout = /not found|no ONNX model/.test(message) ? `\n${LAYOUT}` : '';
      throw new Error(`could not load the ONNX model "${r.name}": ${message}${layout}`, { cause: e });
    }
    // the replaced model's session holds its weights outside the JS heap (WASM memory or GPU buffers)
    const replaced = this.current?.model.agent.policy;
    this.current = { key, model };
    if (replaced && !r.inUse(replaced)) await replaced.dispose();
    return model;
  }
}

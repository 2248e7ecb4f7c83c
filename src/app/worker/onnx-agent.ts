// An ONNX model for the page: a folder in the hub's onnx-community layout (config.json, tokenizer.json,
// tokenizer_config.json, onnx/model.onnx, optional onnx/model.onnx_data) read through any FileSource (the
// embedded folder, a picked local folder, the hub download cache), opened by the RL core's loadOnnxAgent on
// onnxruntime-web, with what the header shows about it: the EP that runs it and why, when it is not the one
// the page's backend asked for.
import { loadOnnxAgent, type OnnxAgent } from '../../rl/frozen-agent.ts';
import type { FileSource } from '../../util/file-source.ts';
import { runtimeLabel, type OrtLoader, type WantedEp } from './onnx-runtime.ts';
import type { OnnxInfo } from './protocol.ts';

/** " (<ep>: <onnxruntime's message>)" of the first provider that failed, on one line, or "" when none failed */
function why(fallbacks: readonly string[]): string {
  const reason = fallbacks[0];
  if (!reason) return '';
  const line = reason.split('\n')[0];
  return ` (${line.length > 200 ? `${line.slice(0, 200)}…` : line})`;
}

export interface PageOnnxAgent {
  agent: OnnxAgent;
  info: OnnxInfo;
}

/**
 * Load an ONNX model folder. `name` labels it in the page (e.g. "tiny-rema"); `wanted` is the EP the page's
 * backend suggests. Errors name the folder and the file (from loadOnnxAgent).
 */
export async function openOnnxModel(
  source: FileSource,
  name: string,
  wanted: WantedEp,
  loadOrt: OrtLoader,
  onProgress?: (file: string, loaded: number, total: number | null) => void,
): Promise<PageOnnxAgent> {
  const runtime = await loadOrt(wanted);
  const agent = await loadOnnxAgent(source, runtime.ort, { executionProviders: runtime.providers, onProgress });
  const ep = agent.executionProvider;
  const notice =
    wanted === 'webgpu' && ep !== 'webgpu'
      ? `onnxruntime-web's WebGPU execution provider could not open ${name}/${agent.modelFile}${why(agent.fallbacks)}; it runs on the ${ep.toUpperCase()} execution provider instead (slower).`
      : null;
  const info: OnnxInfo = {
    name: `${name} (ONNX)`,
    architecture: agent.config.architecture,
    layers: agent.config.numLayers,
    ep,
    runtime: runtimeLabel(runtime.name, ep),
    notice,
  };
  return { agent, info };
}

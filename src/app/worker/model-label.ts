// How the page names a model source (ModelSpec) wherever it shows one: the header before the model has loaded,
// the worker's model info, the saved run, the ONNX source of the frozen agent. One function for all of them.
import type { ModelSpec } from './protocol.ts';

/** "tiny-rema", "hf://org/name" or "local: my-folder". */
export function modelLabel(spec: ModelSpec): string {
  return spec.kind === 'hub' ? `hf://${spec.repo}` : spec.kind === 'local' ? `local: ${spec.name}` : spec.name;
}

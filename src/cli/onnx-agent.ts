// Frozen ONNX agents in the CLI: a model folder or Hugging Face repo id in the onnx-community layout (config.json,
// tokenizer files, onnx/model.onnx [+ onnx/model.onnx_data]) opened through the same folder / hub-cache code as
// engine models (hub.ts), and run by onnxruntime-node on its CPU execution provider (src/rl/frozen-agent.ts).

import * as ort from 'onnxruntime-node';
import { loadOnnxAgent, type OnnxAgent, type OrtModuleLike } from '../rl/frozen-agent.ts';
import { openModelSource } from './hub.ts';

/** onnxruntime-node as the injected runtime of loadOnnxAgent. */
export const ortNode: OrtModuleLike = {
  InferenceSession: {
    create: (model, options) => ort.InferenceSession.create(model, options as ort.InferenceSession.SessionOptions),
  },
  Tensor: ort.Tensor as unknown as OrtModuleLike['Tensor'],
};

export interface CliOnnxAgent extends OnnxAgent {
  /** the folder or repo id as given */
  spec: string;
  /** where the files came from (folder path or hf://repo) */
  source: string;
  /** e.g. "onnxruntime-node 1.30.0, cpu execution provider" */
  runtime: string;
}

/** Loads `spec` (a folder, "org/name" or "org/name@revision") as a frozen ONNX agent on onnxruntime-node. */
export async function loadCliOnnxAgent(spec: string): Promise<CliOnnxAgent> {
  const files = openModelSource(spec);
  const agent = await loadOnnxAgent(files, ortNode, { executionProviders: ['cpu'] });
  const version = (ort.env.versions as { node?: string }).node ?? 'unknown version';
  return {
    ...agent,
    spec,
    source: files.name,
    runtime: `onnxruntime-node ${version}, ${agent.executionProvider} execution provider`,
  };
}

/** One line for stderr: what runs the agent. */
export function describeOnnxAgent(what: string, a: CliOnnxAgent): string {
  return `${what}: ${a.source}/${a.modelFile} (${a.config.architecture}, ${a.config.numLayers} layers, vocab ${a.config.vocabSize}) on ${a.runtime}`;
}

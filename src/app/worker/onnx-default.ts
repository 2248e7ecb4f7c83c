// The ONNX model the page offers by default, offline: the embedded tiny-rema exported to ONNX
// (public/models/tiny-rema/onnx/model.onnx, made by scripts/onnx/export_hf_onnx.py). A separate file so that the
// store and URL code can name it without importing the worker's session.
import type { OnnxModelSpec } from './protocol.ts';

export const DEFAULT_ONNX_SPEC: OnnxModelSpec = { kind: 'embedded', name: 'tiny-rema' };

/** Embedded folders (under public/models/) that ship an onnx/ folder. */
export const EMBEDDED_ONNX_MODELS: readonly string[] = ['tiny-rema'];

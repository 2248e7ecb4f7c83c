// A read-only view of a model folder (local directory, browser File System Access handle, HTTP / hub cache),
// so that loaders in engine/ and data/ never touch node:fs, fetch or the DOM themselves.

export interface FileSource {
  /** shown in error messages, e.g. "/models/tiny-rema" or "hf://Qwen/Qwen2.5-0.5B-Instruct" */
  readonly name: string;
  /** the file's bytes, or null when it does not exist */
  read(path: string, onProgress?: (loadedBytes: number, totalBytes: number | null) => void): Promise<Uint8Array | null>;
}

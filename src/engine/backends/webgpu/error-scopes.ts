// The device calls that can fail on their own (creating a buffer, compiling a pipeline) run inside WebGPU error
// scopes, so an out-of-memory or a validation error names what was being created (the tensor, its shape and bytes;
// the kernel) instead of arriving later as an anonymous uncaptured error. Scopes report asynchronously: the backend
// waits for the open reports in sync() and download() and throws the first one there.

export class ErrorScopes {
  private readonly open = new Set<Promise<void>>();

  constructor(
    private readonly device: GPUDevice,
    /** receives "<what>: out of memory (<the implementation's message>)" and the like */
    private readonly report: (message: string) => void,
  ) {}

  /** Runs `create` inside an out-of-memory and a validation scope; an error there is reported as `what()`'s. */
  run<T>(what: () => string, create: () => T): T {
    this.device.pushErrorScope('out-of-memory');
    this.device.pushErrorScope('validation');
    try {
      return create();
    } finally {
      const validation = this.device.popErrorScope();
      const memory = this.device.popErrorScope();
      const settled = Promise.all([validation, memory]).then(
        ([v, m]) => {
          if (m) this.report(`${what()}: out of memory (${m.message})`);
          else if (v) this.report(`${what()}: ${v.message}`);
        },
        () => {}, // the scopes of a lost device reject; the loss itself is reported by the backend
      );
      this.open.add(settled);
      void settled.then(() => this.open.delete(settled));
    }
  }

  /** Resolves once every scope opened so far has reported. */
  async settled(): Promise<void> {
    while (this.open.size > 0) await Promise.all(this.open);
  }
}

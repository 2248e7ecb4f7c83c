// A wall-clock budget for one answer check. The checker runs on the trainer's thread (no workers in src/rl),
// so every loop that can grow with the input calls `check()`, and the symbolic layer is only entered for
// inputs that passed the size and magnitude guards in guard.ts. A spent budget throws, and the caller
// turns that into `correct: false`.

/** Thrown when a check runs past its deadline; verifyMath catches it and scores the answer 0. */
export class VerifierTimeout extends Error {
  constructor(ms: number) {
    super(`answer check ran past its ${ms} ms budget`);
    this.name = 'VerifierTimeout';
  }
}

export class Deadline {
  private readonly endsAt: number;

  /**
   * `floatRounding`: decimal places kept when a decimal number is compared (Math-Verify float_rounding); the
   * check's options travel with its deadline because both belong to one check and reach every recursive step.
   */
  constructor(
    readonly budgetMs: number,
    readonly floatRounding = 6,
    /** Math-Verify allow_set_relation_comp: a gold set (x in [a, b]) may be answered by an inequality. */
    readonly allowSetRelationComp = false,
  ) {
    this.endsAt = Date.now() + budgetMs;
  }

  /** Milliseconds left (never negative). */
  remaining(): number {
    return Math.max(0, this.endsAt - Date.now());
  }

  expired(): boolean {
    return Date.now() >= this.endsAt;
  }

  /** Throw VerifierTimeout when the budget is spent. Cheap enough to call inside loops. */
  check(): void {
    if (Date.now() >= this.endsAt) throw new VerifierTimeout(this.budgetMs);
  }
}

// The trainer's implementation (see trainer.ts for the contract). Filled in step by step.
import type { Trainer, TrainerOptions } from './trainer.ts';

export function createTrainer(opts: TrainerOptions): Trainer {
  void opts;
  throw new Error('createTrainer: not implemented yet');
}

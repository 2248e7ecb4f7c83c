// The fixed held-out sample on which pretrain.ts records the shipped model's greedy accuracy and
// tests/models/tiny-model.test.ts checks that the committed weights still reproduce it.

import type { Problem } from '../../src/data/problem.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';

export const REGRESSION_SAMPLE = (): Problem[] => tinyArithProblems({ split: 'heldout', count: 48, seed: 777 });

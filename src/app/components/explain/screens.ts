// The explain view's screens, in the order a GRPO update runs: one idea each, with a two-line plain-language
// caption and the formula it shows (KaTeX source). The bodies that draw each screen's numbers are in Screens.tsx.
import type { ExplainRecord } from '../../../rl/train/explain.ts';

export type ScreenId = 'group' | 'stats' | 'advantage' | 'ratio' | 'coef' | 'grad' | 'update' | 'after';

export interface ScreenText {
  id: ScreenId;
  title: string;
  caption: [string, string];
  formula: string;
}

/** the screens for one record (captions mention its group size and settings) */
export function screens(r: ExplainRecord): ScreenText[] {
  const s = r.settings;
  const g = r.groups[0]?.rollouts.length ?? 0;
  const onPolicy = s.miniBatches * s.ppoEpochs === 1;
  const scaled =
    s.stdScaling === 'none'
      ? 'A_i = r_i - \\mu'
      : `A_i = \\frac{r_i - \\mu}{\\sigma${s.stdScaling === 'batch' ? '_{\\text{batch}}' : ''} + \\varepsilon}`;
  return [
    {
      id: 'group',
      title: `One problem, ${g} tries`,
      caption: [
        `The trainer sampled ${g} dialogues for this problem: the meta-thinking agent writes a plan, the reasoning agent carries it out.`,
        'Each dialogue earns a reward: 1 when its final answer is right, else 0.',
      ],
      formula: 'r_i = \\mathbb{1}\\left[\\text{answer}_i = \\text{gold}\\right], \\quad i = 1, \\dots, G',
    },
    {
      id: 'stats',
      title: "The group's mean and spread",
      caption: [
        'GRPO grades each try against the other tries at the same problem, not against a fixed bar.',
        'The mean reward is the bar to beat; the standard deviation says how much the tries differ.',
      ],
      formula: '\\mu = \\frac{1}{G}\\sum_{i} r_i, \\qquad \\sigma = \\sqrt{\\frac{1}{G-1}\\sum_{i} (r_i - \\mu)^2}',
    },
    {
      id: 'advantage',
      title: 'Each try’s advantage',
      caption: [
        'The advantage says how much better than its group a try did, in units of the group’s spread.',
        'Tries above zero will be made more likely, tries below zero less likely; equal rewards teach nothing.',
      ],
      formula: `${scaled}, \\quad \\varepsilon = ${s.advEps}`,
    },
    {
      id: 'ratio',
      title: 'Ratio and clipping, token by token',
      caption: onPolicy
        ? [
            'With one mini-batch and one epoch the loss is taken before the weights move: every ratio is exactly 1.',
            'Clipping only acts when several mini-batches or epochs reuse the same rollouts.',
          ]
        : [
            `The rollouts are used in ${s.miniBatches} mini-batch(es) × ${s.ppoEpochs} epoch(s): later ones see weights that already moved.`,
            'Orange tokens got more likely, blue less; past 1 ± ε the clip stops pushing them further.',
          ],
      formula: `\\rho_t = \\frac{\\pi_\\theta(y_t)}{\\pi_{\\text{old}}(y_t)}, \\quad \\min\\!\\big(\\rho_t A,\\ \\operatorname{clip}(\\rho_t, 1 - ${s.clipLow}, 1 + ${s.clipHigh})\\,A\\big)`,
    },
    {
      id: 'coef',
      title: 'What each token gets in the loss',
      caption: [
        'The backward pass multiplies each token’s log-probability by a coefficient; the optimiser lowers the loss.',
        'Green tokens (negative coefficient) are pushed up, red ones pushed down; clipped tokens get 0.',
      ],
      formula:
        'L = \\sum_t c_t \\log \\pi_\\theta(y_t), \\qquad c_t = \\frac{\\partial L}{\\partial \\log \\pi_\\theta(y_t)} = -\\,w_t\\,\\rho_t A_t \\ \\ (0 \\text{ if clipped})',
    },
    {
      id: 'grad',
      title: 'Gradient norm per layer and adapter',
      caption: [
        'The coefficients become a gradient for every trained weight; its length per layer shows where the step lands.',
        'The per-layer lengths combine into the total the optimiser sees (the chart’s grad norm is their mean per step).',
      ],
      formula: '\\lVert g \\rVert = \\sqrt{\\textstyle\\sum_{\\ell} \\lVert g_\\ell \\rVert^2}',
    },
    {
      id: 'update',
      title: 'The update',
      caption: [
        'AdamW moves every trained weight a small step against its gradient.',
        `A gradient longer than ${s.gradClip} is first scaled down to that length.`,
      ],
      formula:
        'g \\leftarrow g \\cdot \\min\\!\\Big(1, \\frac{c}{\\lVert g \\rVert}\\Big), \\qquad \\theta \\leftarrow \\theta - \\eta \\Big(\\frac{\\hat m}{\\sqrt{\\hat v} + \\epsilon} + \\lambda \\theta\\Big)',
    },
    {
      id: 'after',
      title: 'Did the rewarded tries become more likely?',
      caption: [
        'The same sampled tokens, scored again with the new weights.',
        'Tries with A > 0 should gain log-probability and tries with A < 0 lose it: e^Δ is how many times more likely.',
      ],
      formula: '\\Delta_i = \\sum_t \\log \\pi_{\\text{new}}(y_{i,t}) - \\log \\pi_{\\text{old}}(y_{i,t})',
    },
  ];
}

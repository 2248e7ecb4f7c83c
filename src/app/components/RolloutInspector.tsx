// The rollout inspector for the latest step: an overview of every group (one row per problem, one cell per
// sample, coloured by reward), then the selected group's samples side by side, each with the meta-thinking
// agent's plans and the reasoning agent's steps interleaved turn by turn, reward, advantage and finish reason.
// "colour by" tints whole cards (advantage, reward) or, where the step carries per-token data, each trained token
// by its advantage, ratio or clip status (TokenText.tsx); turns without it stay plain text with KaTeX. The turns of
// a frozen agent (an ONNX model that never trains: the run's config.frozenAgent) are marked as such and never
// coloured: they get no advantage and no loss. The latest VRP baseline of the ONNX model can be shown too.
import { useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AgentRole } from '../../rl/config.ts';
import type { RolloutRecord } from '../../rl/metrics.ts';
import { usePlayground } from '../store/react.ts';
import { groupRollouts } from '../store/selectors.ts';
import type { TokenColoring } from '../store/types.ts';
import { MathText } from './MathText.tsx';
import { MetaActionText } from './MetaActionText.tsx';
import { hasTokens, isTokenMode, TOKEN_MODES, TokenText, type TokenMode } from './TokenText.tsx';

/** red for negative, green for positive; |x| = 1 is full strength */
export function signedTint(x: number): string {
  const a = Math.min(1, Math.abs(x)) * 0.35;
  return x >= 0 ? `rgba(22, 163, 74, ${a})` : `rgba(220, 38, 38, ${a})`;
}

function SampleCard({
  r,
  coloring,
  tokenMode,
  frozenRole,
}: {
  r: RolloutRecord;
  coloring: TokenColoring;
  tokenMode: TokenMode | null;
  frozenRole: AgentRole | null;
}) {
  const tint =
    tokenMode !== null
      ? 'transparent'
      : coloring === 'advantage'
        ? signedTint(r.advantage)
        : coloring === 'reward'
          ? signedTint(r.reward * 2 - 1)
          : 'transparent';
  let turn = 0;
  return (
    <article className="sample" data-testid="sample" style={{ background: tint }}>
      <header className="sample-head">
        <span className={r.correct ? 'ok' : 'bad'}>{r.correct ? '✓' : '✗'}</span> #{r.sample}
        <span title="episode reward">r={r.reward.toFixed(2)}</span>
        <span title="advantage (group-normalised)">A={r.advantage.toFixed(2)}</span>
        <span className={`finish finish-${r.finish_reason}`} title="finish reason">
          {r.finish_reason}
        </span>
      </header>
      {r.extracted !== undefined && (
        <div className="extracted">
          answer: <MathText text={r.extracted || '(none)'} />
        </div>
      )}
      <ol className="turns">
        {r.turns.map((t, i) => {
          if (t.role === 'meta' || i === 0) turn++;
          const frozen = t.role === frozenRole;
          return (
            <li
              key={i}
              className={`turn turn-${t.role}${frozen ? ' turn-frozen' : ''}`}
              data-role={t.role}
              data-frozen={frozen ? 'true' : 'false'}
            >
              <span className="turn-tag">
                {t.role === 'meta' ? `MTA · turn ${turn}` : `RA · turn ${turn}`} · {t.tokens} tok
                {t.truncated ? ' · truncated' : ''}
                {frozen && (
                  <span
                    className="frozen-tag"
                    title="a frozen ONNX agent wrote this turn: it is not trained (no advantage, no loss)"
                  >
                    {' '}
                    · frozen (ONNX, not trained)
                  </span>
                )}
              </span>
              {tokenMode !== null && !frozen && hasTokens(t) ? (
                <TokenText turn={t} mode={tokenMode} />
              ) : t.role === 'meta' ? (
                <MetaActionText text={t.text} className="turn-text" />
              ) : (
                <MathText text={t.text || '(empty)'} className="turn-text" />
              )}
            </li>
          );
        })}
      </ol>
    </article>
  );
}

export function RolloutInspector() {
  const { run, activeConfig, onnxEvaluation, inspected, inspectRun, selected, selectGroup, coloring, setColoring } =
    usePlayground(
      useShallow((s) => ({
        run: (s.inspectedRunId !== null ? s.runs.find((r) => r.id === s.inspectedRunId) : null) ?? s.currentRun,
        activeConfig: s.activeConfig,
        onnxEvaluation: s.onnxEvaluation,
        inspected: s.inspectedRunId !== null,
        inspectRun: s.inspectRun,
        selected: s.selectedGroup,
        selectGroup: s.selectGroup,
        coloring: s.coloring,
        setColoring: s.setColoring,
      })),
    );
  // the agent that never trained in the run shown (saved runs carry their config; older ones have no field)
  const frozenAgent = (run?.config ?? activeConfig).frozenAgent ?? 'none';
  const frozenRole = frozenAgent === 'none' ? null : frozenAgent;
  const trainRollouts = run?.rollouts;
  const evalRollouts = run?.evalRollouts;
  const step = run?.metrics.at(-1)?.step;
  const evalStep = run?.evaluations?.at(-1)?.step;
  const [picked, setPicked] = useState<'train' | 'eval' | 'onnx' | null>(null);
  const tokenMode: TokenMode | null = isTokenMode(coloring) ? coloring : null;
  const hasTrain = (trainRollouts?.length ?? 0) > 0;
  const hasEval = (evalRollouts?.length ?? 0) > 0;
  const hasOnnx = (onnxEvaluation?.rollouts.length ?? 0) > 0 && !inspected;
  // the latest training step by default; the held-out evaluation when there is no step yet
  const source =
    picked === 'onnx' && hasOnnx
      ? 'onnx'
      : picked === 'eval' && hasEval
        ? 'eval'
        : hasTrain
          ? 'train'
          : hasEval || !hasOnnx
            ? 'eval'
            : 'onnx';
  const rollouts = source === 'train' ? trainRollouts : source === 'eval' ? evalRollouts : onnxEvaluation?.rollouts;
  const groups = useMemo(() => groupRollouts(rollouts ?? []), [rollouts]);
  const savedBanner = inspected && run && (
    <div className="warning" data-testid="inspecting-saved">
      Showing the saved run <b>{run.name}</b>.{' '}
      <button type="button" onClick={() => inspectRun(null)}>
        Back to the current run
      </button>
    </div>
  );
  if (groups.length === 0) {
    return (
      <>
        {savedBanner}
        <p className="empty" data-testid="rollouts-empty">
          No rollouts yet: run a training step (or Evaluate) to see both agents at work.
        </p>
      </>
    );
  }
  const current = groups[Math.min(selected, groups.length - 1)];
  const head = current[0];
  return (
    <div className="inspector" data-testid="inspector">
      {savedBanner}
      <div className="inspector-bar">
        <span data-testid="inspector-source">
          {source === 'train'
            ? `training step ${step}`
            : source === 'eval'
              ? `held-out evaluation after ${evalStep} updates (greedy)`
              : `VRP baseline of ${onnxEvaluation?.onnx.name} (greedy)`}{' '}
          · {groups.length} {source === 'train' ? 'groups' : 'problems'} × {current.length} samples
        </span>
        {[hasTrain, hasEval, hasOnnx].filter(Boolean).length > 1 && (
          <label>
            show{' '}
            <select
              value={source}
              onChange={(e) => setPicked(e.target.value as 'train' | 'eval')}
              data-testid="inspector-source-select"
            >
              {hasTrain && <option value="train">latest training step</option>}
              {hasEval && <option value="eval">latest held-out evaluation</option>}
              {hasOnnx && <option value="onnx">ONNX model: VRP baseline</option>}
            </select>
          </label>
        )}
        <label>
          colour by{' '}
          <select
            value={coloring}
            onChange={(e) => setColoring(e.target.value as TokenColoring)}
            data-testid="colouring"
          >
            <option value="advantage">card: advantage</option>
            <option value="reward">card: reward</option>
            <option value="none">none (plain text)</option>
            {TOKEN_MODES.map((m) => (
              <option key={m.mode} value={m.mode}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        {tokenMode !== null && (
          <span className="token-legend" data-testid="token-legend">
            {current.some((r) => r.turns.some(hasTokens))
              ? TOKEN_MODES.find((m) => m.mode === tokenMode)?.legend
              : 'no per-token data for these rollouts (held-out evaluation or an older run): plain text'}
          </span>
        )}
      </div>
      <div className="group-overview-wrap">
        <table className="group-overview" aria-label="groups">
          <tbody>
            {groups.map((g, gi) => (
              <tr
                key={gi}
                className={gi === groups.indexOf(current) ? 'selected' : ''}
                onClick={() => selectGroup(gi)}
                data-testid="group-row"
              >
                <th scope="row">G{g[0].group}</th>
                {g.map((r) => (
                  <td
                    key={r.sample}
                    style={{ background: signedTint(r.reward * 2 - 1) }}
                    title={`reward ${r.reward.toFixed(2)}, ${r.finish_reason}`}
                  >
                    {r.correct ? '✓' : '·'}
                  </td>
                ))}
                <td className="group-q">
                  <MathText text={g[0].question.slice(0, 90) + (g[0].question.length > 90 ? '…' : '')} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="question">
        <b>Problem (group {head.group}):</b> <MathText text={head.question} />{' '}
        <span className="gold">
          gold: <MathText text={head.gold} />
        </span>
      </div>
      <div className="samples">
        {current.map((r) => (
          <SampleCard
            key={r.sample}
            r={r}
            coloring={coloring}
            tokenMode={tokenMode}
            frozenRole={source === 'onnx' ? null : frozenRole}
          />
        ))}
      </div>
    </div>
  );
}

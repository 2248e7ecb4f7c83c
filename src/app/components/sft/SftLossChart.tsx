// The SFT mode's live loss curve: one point per step the worker reported (mean NLL per trained token), drawn as it
// arrives. The reported values ride along in data-losses so a test can compare the drawn points with them.
export function SftLossChart({ losses, total }: { losses: readonly { step: number; loss: number }[]; total: number }) {
  const W = 260;
  const H = 120;
  const pad = 6;
  const hi = Math.max(...losses.map((p) => p.loss), 1e-9);
  const lastStep = Math.max(total, losses.at(-1)?.step ?? 1, 1);
  const x = (step: number) => pad + ((step - 1) / Math.max(lastStep - 1, 1)) * (W - 2 * pad);
  const y = (loss: number) => H - pad - (loss / hi) * (H - 2 * pad);
  const points = losses.map((p) => `${x(p.step).toFixed(2)},${y(p.loss).toFixed(2)}`).join(' ');
  return (
    <svg
      className="sft-loss"
      width={W}
      height={H}
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label={`SFT loss over ${losses.length} steps`}
      data-testid="sft-loss-chart"
      data-losses={JSON.stringify(losses)}
      data-max={hi}
    >
      <rect x={0} y={0} width={W} height={H} fill="none" stroke="#ccc" />
      <text x={pad} y={12} fontSize={10} fill="#666">
        {hi.toFixed(3)}
      </text>
      {losses.length > 0 && (
        <polyline data-testid="sft-loss-line" points={points} fill="none" stroke="#1f77b4" strokeWidth={1.5} />
      )}
    </svg>
  );
}

// The bodies of the explain view's screens (screens.ts has their titles, captions and formulas): each draws the
// recorded numbers of one idea of the update. Every number shown carries a data-testid (explain-reward,
// explain-mean, ...) so the browser test can compare the screen with the trainer's record.
import type {
  ExplainGroup,
  ExplainOptimizerStep,
  ExplainRecord,
  ExplainRollout,
  ExplainRow,
} from '../../../rl/train/explain.ts';
import { MathText } from '../MathText.tsx';
import { ExplainTokens, tokenValue, type ExplainTokenMode } from './ExplainTokens.tsx';
import { fmt } from './format.ts';
import type { ScreenId } from './screens.ts';

const ROLE: Record<string, string> = { meta: 'meta-thinking agent', reasoning: 'reasoning agent' };

/** the row a try's reward is read from: the reasoning agent's (the episode's reward), else the only one */
export function headlineRow(r: ExplainRollout): ExplainRow | undefined {
  return r.rows.find((x) => x.role === 'reasoning') ?? r.rows[0];
}

function GroupBody({ group }: { group: ExplainGroup }) {
  return (
    <>
      <p className="explain-problem">
        <b>Problem:</b> <MathText text={group.question} />{' '}
        <span className="gold">
          gold: <MathText text={group.gold} />
        </span>
      </p>
      <div className="explain-tries">
        {group.rollouts.map((r) => (
          <article key={r.sample} className="explain-try" data-testid="explain-try">
            <header>
              <span className={r.correct ? 'ok' : 'bad'}>{r.correct ? '✓' : '✗'}</span> try #{r.sample + 1}
              <span className="explain-num">
                r = <b data-testid="explain-reward">{fmt(headlineRow(r)?.reward ?? 0)}</b>
              </span>
            </header>
            <div className="explain-columns">
              {(['meta', 'reasoning'] as const).map((role) => (
                <div key={role} className={`explain-col turn-${role}`} data-role={role}>
                  <span className="turn-tag">{role === 'meta' ? 'plan (MTA)' : 'reasoning (RA)'}</span>
                  {r.messages
                    .filter((m) => m.role === role)
                    .map((m, i) => (
                      <MathText key={i} text={m.text || '(empty)'} className="turn-text" />
                    ))}
                </div>
              ))}
            </div>
          </article>
        ))}
      </div>
    </>
  );
}

function StatsBody({ group }: { group: ExplainGroup }) {
  return (
    <div className="explain-stats">
      {group.stats.map((s) => (
        <section key={s.role} className="explain-stat" data-role={s.role}>
          <h4>{ROLE[s.role]}</h4>
          <p className="explain-chips">
            {s.rewards.map((r, i) => (
              <span key={i} className="explain-chip">
                {fmt(r)}
              </span>
            ))}
          </p>
          <p className="explain-big">
            μ = <b data-testid="explain-mean">{fmt(s.mean)}</b> &nbsp; σ = <b data-testid="explain-std">{fmt(s.std)}</b>
          </p>
        </section>
      ))}
    </div>
  );
}

function AdvantageBody({ group }: { group: ExplainGroup }) {
  return (
    <table className="explain-table">
      <thead>
        <tr>
          <th>try</th>
          {group.stats.map((s) => (
            <th key={s.role} colSpan={2}>
              {ROLE[s.role]}: r, A
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {group.rollouts.map((r) => (
          <tr key={r.sample}>
            <td>#{r.sample + 1}</td>
            {group.stats.map((s) => {
              const row = r.rows.find((x) => x.role === s.role);
              return [
                <td key={`${s.role}-r`}>{row ? fmt(row.reward) : ''}</td>,
                <td
                  key={`${s.role}-a`}
                  className={row && row.advantage > 0 ? 'pos' : row && row.advantage < 0 ? 'neg' : ''}
                >
                  {row ? (
                    <span data-testid="explain-adv" data-role={s.role}>
                      {fmt(row.advantage)}
                    </span>
                  ) : (
                    ''
                  )}
                </td>,
              ];
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** the largest |value| of a mode over the group's tokens, so colours compare across tries */
function scaleOf(group: ExplainGroup, mode: 'coef' | 'delta'): number {
  let m = 0;
  for (const r of group.rollouts)
    for (const msg of r.messages)
      if (msg.tokens)
        for (let i = 0; i < msg.tokens.pieces.length; i++) m = Math.max(m, Math.abs(tokenValue(msg.tokens, mode, i)));
  return m;
}

function TokensBody({ group, mode, note }: { group: ExplainGroup; mode: ExplainTokenMode; note: string }) {
  const scale = mode === 'coef' || mode === 'delta' ? scaleOf(group, mode) : 1;
  return (
    <>
      <p className="hint">{note}</p>
      <div className="explain-token-tries">
        {group.rollouts.map((r) => (
          <article key={r.sample} className="explain-try">
            <header>
              try #{r.sample + 1}
              {r.rows.map((row) => (
                <span key={row.role} className="explain-num">
                  {row.role === 'meta' ? 'MTA' : 'RA'} A = {fmt(row.advantage, 3)}
                </span>
              ))}
            </header>
            <ol className="turns">
              {r.messages.map((m, i) => (
                <li key={i} className={`turn turn-${m.role}`} data-role={m.role}>
                  <ExplainTokens message={m} mode={mode} scale={scale} />
                </li>
              ))}
            </ol>
          </article>
        ))}
      </div>
    </>
  );
}

function ratioNote(group: ExplainGroup): string {
  let n = 0,
    low = 0,
    high = 0,
    min = Infinity,
    max = -Infinity;
  for (const r of group.rollouts)
    for (const m of r.messages)
      if (m.tokens)
        m.tokens.ratio.forEach((x, i) => {
          n++;
          min = Math.min(min, x);
          max = Math.max(max, x);
          if (m.tokens!.clip[i] < 0) low++;
          if (m.tokens!.clip[i] > 0) high++;
        });
  return n === 0
    ? 'No trained tokens in this group.'
    : `${n} trained tokens · ratio from ${fmt(min)} to ${fmt(max)} · clipped low ${low}, high ${high}`;
}

function GradBody({ record }: { record: ExplainRecord }) {
  return (
    <div className="explain-grads">
      <p className="hint">
        the step’s grad norm (mean over its {record.optimizerSteps.length} optimiser step
        {record.optimizerSteps.length === 1 ? '' : 's'}):{' '}
        <b data-testid="explain-step-gradnorm">{fmt(record.gradNorm)}</b>
      </p>
      {record.optimizerSteps.map((s, k) => {
        const top = Math.max(...s.layers.map((l) => l.norm), 1e-12);
        return (
          <section key={k} className="explain-grad" data-testid="explain-opt-step">
            <h4>
              epoch {s.epoch + 1} · mini-batch {s.miniBatch + 1} · adapter “{s.adapter}”: ‖g‖ ={' '}
              <b data-testid="explain-gradnorm">{fmt(s.gradNorm)}</b>
            </h4>
            {s.layers.map((l) => (
              <div key={l.name} className="explain-bar-row">
                <span className="explain-bar-label">{l.name}</span>
                <span className="explain-bar">
                  <span style={{ width: `${(100 * l.norm) / top}%` }} />
                </span>
                <span className="explain-bar-value" data-testid="explain-layer-norm">
                  {fmt(l.norm)}
                </span>
              </div>
            ))}
          </section>
        );
      })}
    </div>
  );
}

function UpdateBody({ record }: { record: ExplainRecord }) {
  const clip = record.settings.gradClip;
  const scale = (s: ExplainOptimizerStep) => (clip > 0 && s.gradNorm > clip ? clip / s.gradNorm : 1);
  return (
    <table className="explain-table">
      <thead>
        <tr>
          <th>optimiser step</th>
          <th>‖g‖</th>
          <th>clip c</th>
          <th>scale min(1, c/‖g‖)</th>
          <th>learning rate η</th>
          <th>applied</th>
        </tr>
      </thead>
      <tbody>
        {record.optimizerSteps.map((s, k) => (
          <tr key={k}>
            <td>
              epoch {s.epoch + 1} · mini-batch {s.miniBatch + 1} · {s.adapter}
            </td>
            <td>{fmt(s.gradNorm)}</td>
            <td>{clip > 0 ? fmt(clip, 2) : 'off'}</td>
            <td>{fmt(scale(s))}</td>
            <td>{s.lr.toExponential(2)}</td>
            <td>{s.applied ? 'yes' : 'skipped (non-finite)'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const meanOf = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

function AfterBody({ group }: { group: ExplainGroup }) {
  const rows = group.rollouts.flatMap((r) => r.rows.filter((x) => x.tokens > 0).map((row) => ({ r, row })));
  const up = meanOf(rows.filter((x) => x.row.advantage > 0).map((x) => x.row.logpAfter - x.row.logpBefore));
  const down = meanOf(rows.filter((x) => x.row.advantage < 0).map((x) => x.row.logpAfter - x.row.logpBefore));
  return (
    <>
      <p className="explain-big" data-testid="explain-verdict">
        rewarded (A &gt; 0): mean Δ = <b>{fmt(up)}</b> (×{Number.isNaN(up) ? 'n/a' : fmt(Math.exp(up), 3)}) · penalised
        (A &lt; 0): mean Δ = <b>{fmt(down)}</b> (×
        {Number.isNaN(down) ? 'n/a' : fmt(Math.exp(down), 3)})
      </p>
      <table className="explain-table">
        <thead>
          <tr>
            <th>try</th>
            <th>agent</th>
            <th>A</th>
            <th>tokens</th>
            <th>Σ log π before</th>
            <th>Σ log π after</th>
            <th>Δ</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ r, row }) => {
            const d = row.logpAfter - row.logpBefore;
            return (
              <tr key={`${r.sample}-${row.role}`}>
                <td>#{r.sample + 1}</td>
                <td>{row.role === 'meta' ? 'MTA' : 'RA'}</td>
                <td className={row.advantage > 0 ? 'pos' : row.advantage < 0 ? 'neg' : ''}>{fmt(row.advantage)}</td>
                <td>{row.tokens}</td>
                <td>{fmt(row.logpBefore)}</td>
                <td>{fmt(row.logpAfter)}</td>
                <td className={d > 0 ? 'pos' : d < 0 ? 'neg' : ''}>
                  <span data-testid="explain-delta">{fmt(d)}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <TokensBody
        group={group}
        mode="delta"
        note="each token tinted by its own change in log-probability (green up, red down)"
      />
    </>
  );
}

export function ScreenBody({ id, record, group }: { id: ScreenId; record: ExplainRecord; group: ExplainGroup }) {
  switch (id) {
    case 'group':
      return <GroupBody group={group} />;
    case 'stats':
      return <StatsBody group={group} />;
    case 'advantage':
      return <AdvantageBody group={group} />;
    case 'ratio':
      return <TokensBody group={group} mode="ratio" note={ratioNote(group)} />;
    case 'coef':
      return <TokensBody group={group} mode="coef" note="hover a token for its coefficient, advantage and ratio" />;
    case 'grad':
      return <GradBody record={record} />;
    case 'update':
      return <UpdateBody record={record} />;
    case 'after':
      return <AfterBody group={group} />;
  }
}

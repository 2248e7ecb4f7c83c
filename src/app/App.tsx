// The page layout: header, a sidebar (controls, model, knobs) and the main area with four views (curves,
// rollouts, plan intervention, runs). Each view has its own error boundary, so one failing view never blanks
// the page.
import { useShallow } from 'zustand/react/shallow';
import { Charts } from './components/charts/Charts.tsx';
import { AblationPanel } from './components/AblationPanel.tsx';
import { AblationResults } from './components/AblationResults.tsx';
import { ConfigPanel } from './components/ConfigPanel.tsx';
import { ContextNotice } from './components/ContextNotice.tsx';
import { Controls } from './components/Controls.tsx';
import { DivergenceAlarm } from './components/DivergenceAlarm.tsx';
import { EchoTrapAlarm } from './components/EchoTrapAlarm.tsx';
import { ErrorBanner } from './components/ErrorBanner.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { ExplainView } from './components/explain/ExplainView.tsx';
import { FrozenAgentPanel } from './components/FrozenAgentPanel.tsx';
import { GpuCheck } from './components/GpuCheck.tsx';
import { Header } from './components/Header.tsx';
import { ModelLoader } from './components/ModelLoader.tsx';
import { FollowedCard } from './components/plan-view/FollowedCard.tsx';
import { PlanView } from './components/plan-view/PlanView.tsx';
import { Presenter } from './components/presenter/Presenter.tsx';
import { PlanIntervention } from './components/PlanIntervention.tsx';
import { RolloutInspector } from './components/RolloutInspector.tsx';
import { RunsPanel } from './components/RunsPanel.tsx';
import { SftPanel } from './components/sft/SftPanel.tsx';
import { usePlayground } from './store/react.ts';
import type { ViewName } from './store/types.ts';

const tabs: readonly { view: ViewName; label: string }[] = [
  { view: 'curves', label: 'Curves' },
  { view: 'rollouts', label: 'Rollouts' },
  { view: 'plan', label: 'Plan → reasoning' },
  { view: 'intervene', label: 'Plan intervention' },
  { view: 'runs', label: 'Runs' },
];

function MainView({ view }: { view: ViewName }) {
  switch (view) {
    case 'curves':
      return <Charts />;
    case 'rollouts':
      return <RolloutInspector />;
    case 'plan':
      return <PlanView />;
    case 'intervene':
      return <PlanIntervention />;
    case 'runs':
      return <RunsPanel />;
  }
}

export function App() {
  const { view, setView, runCount, presenting, setPresenting, openExplain } = usePlayground(
    useShallow((s) => ({
      view: s.view,
      setView: s.setView,
      runCount: s.runs.length,
      presenting: s.presenting,
      setPresenting: s.setPresenting,
      openExplain: s.openExplain,
    })),
  );
  if (presenting) {
    return (
      <ErrorBoundary label="Presenter mode">
        <Presenter />
        <ExplainView />
      </ErrorBoundary>
    );
  }
  return (
    <div className="app">
      <ErrorBoundary label="The header">
        <Header />
      </ErrorBoundary>
      <div className="layout">
        <aside className="sidebar">
          <ErrorBoundary label="The controls">
            <Controls />
            <details className="panel" open>
              <summary>Model &amp; backend</summary>
              <ModelLoader />
              <FrozenAgentPanel />
              <GpuCheck />
            </details>
            <ConfigPanel />
          </ErrorBoundary>
          <ErrorBoundary label="The SFT panel">
            <details className="panel" data-testid="sft-details">
              <summary>SFT warm start</summary>
              <SftPanel />
            </details>
          </ErrorBoundary>
          <ErrorBoundary label="The ablation panel">
            <details className="panel" data-testid="ablation-details">
              <summary>Ablation</summary>
              <AblationPanel />
            </details>
          </ErrorBoundary>
        </aside>
        <main className="main">
          <ErrorBanner />
          <DivergenceAlarm />
          <ContextNotice />
          <EchoTrapAlarm />
          <ErrorBoundary label="The followed problem">
            <FollowedCard />
          </ErrorBoundary>
          <ErrorBoundary label="The ablation results">
            <AblationResults />
          </ErrorBoundary>
          <nav className="tabs" role="tablist">
            {tabs.map((t) => (
              <button
                key={t.view}
                type="button"
                role="tab"
                aria-selected={view === t.view}
                className={view === t.view ? 'tab active' : 'tab'}
                onClick={() => setView(t.view)}
                data-testid={`tab-${t.view}`}
              >
                {t.label}
                {t.view === 'runs' && runCount > 0 ? ` (${runCount})` : ''}
              </button>
            ))}
            <button
              type="button"
              className="tab explain-open"
              onClick={() => openExplain()}
              data-testid="explain-open"
              title="walk through what the latest training step did, with its real numbers (key e)"
            >
              Explain a step
            </button>
            <button
              type="button"
              className="tab presenter-open"
              onClick={() => {
                setPresenting(true);
                document.documentElement.requestFullscreen?.().catch(() => {});
              }}
              data-testid="presenter-open"
              title="full-screen booth view: one problem followed live, one big chart, keyboard controls"
            >
              Presenter mode
            </button>
          </nav>
          <ErrorBoundary key={view} label={`The ${view} view`}>
            <MainView view={view} />
          </ErrorBoundary>
          <ErrorBoundary label="The explain view">
            <ExplainView />
          </ErrorBoundary>
        </main>
      </div>
    </div>
  );
}

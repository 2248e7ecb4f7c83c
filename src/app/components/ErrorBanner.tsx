// Errors the session reports (bad model files, worker crash, invalid URL) shown in the page, with the way out:
// dismiss, restart the worker, or go back to the tiny model; after a lost GPU device moved the run to another
// backend, continue training there.
import { useShallow } from 'zustand/react/shallow';
import { TINY_MODEL_NAME } from '../../rl/presets.ts';
import { usePlayground } from '../store/react.ts';

export function ErrorBanner() {
  const { error, dismiss, restart, loadModel, train } = usePlayground(
    useShallow((s) => ({
      error: s.error,
      dismiss: s.dismissError,
      restart: s.restartWorker,
      loadModel: s.loadModel,
      train: s.train,
    })),
  );
  if (!error) return null;
  return (
    <div className={error.fatal ? 'alarm' : 'warning'} role="alert" data-testid="error-banner">
      <pre className="error-text">{error.message}</pre>
      <div className="row">
        {error.fatal && (
          <>
            <button type="button" onClick={restart} data-testid="restart-worker">
              Restart the worker
            </button>
            <button type="button" onClick={() => loadModel({ kind: 'embedded', name: TINY_MODEL_NAME })}>
              Load the tiny model
            </button>
          </>
        )}
        {error.continuable && (
          <button
            type="button"
            onClick={() => {
              dismiss();
              train();
            }}
            data-testid="continue-training"
          >
            Continue training
          </button>
        )}
        <button type="button" onClick={dismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}

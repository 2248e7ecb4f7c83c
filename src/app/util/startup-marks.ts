// Start-up performance marks (performance.mark, "rema:<name>", each once per page load), so a browser test and
// bench/browser/startup.ts can read when the page script ran, the first paint, the backend choice, the model
// being ready to train, the first rollout on screen, the first evaluation and the "auto" backend's measurement
// (it runs after the first rollout), measured from navigation start.
const done = new Set<string>();

export function markStartup(
  name: 'script' | 'paint' | 'backend' | 'ready' | 'first-rollout' | 'first-eval' | 'auto-measured',
): void {
  if (done.has(name) || typeof performance === 'undefined' || typeof performance.mark !== 'function') return;
  done.add(name);
  performance.mark(`rema:${name}`);
}

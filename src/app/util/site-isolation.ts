// A built page on a static host that sends no COOP/COEP headers is not cross-origin isolated, so the CPU backend
// would run on one thread. The site's service worker (public/site-sw.js) adds the headers to every response it
// serves and keeps the site for offline visits; this registers it and reloads the page once, so the reloaded page
// is served through it. Where it cannot help (no service worker, not a secure context, a refused registration, or
// still not isolated after the reload) the page goes on as it is, and the header line names the one-thread CPU
// backend's reason.
const RELOADED_KEY = 'rema:isolation-reload';

/** True when the page is about to reload through the service worker (the caller should start nothing). */
export async function isolateThroughServiceWorker(): Promise<boolean> {
  const g = globalThis as { crossOriginIsolated?: boolean; isSecureContext?: boolean };
  if (g.crossOriginIsolated !== false || !g.isSecureContext || !('serviceWorker' in navigator)) return false;
  let reloadedOnce = false;
  try {
    reloadedOnce = sessionStorage.getItem(RELOADED_KEY) === '1';
  } catch {
    // storage refused: a reload could loop, so do not reload
    reloadedOnce = true;
  }
  try {
    const registration = await navigator.serviceWorker.register(new URL('site-sw.js', document.baseURI), {
      scope: './',
    });
    if (reloadedOnce) return false;
    // the page reloads once the worker controls it (a first visit: after it activates)
    if (!navigator.serviceWorker.controller) {
      await new Promise<void>((resolve) => {
        navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true });
        // an already active worker that did not claim this page: claim happens on activate only
        if (registration.active && !registration.installing && !registration.waiting) resolve();
      });
    }
    sessionStorage.setItem(RELOADED_KEY, '1');
    location.reload();
    return true;
  } catch {
    return false;
  }
}

// The playground's service worker, for a built page on any static host. Two jobs:
// 1. Cross-origin isolation where the host sends no COOP/COEP headers: every same-origin response it hands the page
//    carries them, so the page can share memory between workers (the two-thread CPU backend). The page registers
//    this worker and reloads once, as the first response it got came without the headers.
// 2. Offline after the first visit: what the page fetched from its own origin (the page, its scripts, the embedded
//    models and data) is kept in a cache. The network answers first; the cache answers when the network cannot.
// Only same-origin GET requests are touched; everything else goes to the network as the browser would send it.
const CACHE = 'rema-site-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** The response with COOP/COEP added (an opaque or redirected response is passed on unchanged). */
function isolated(response) {
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect') return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function answer(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    // whole files and "not found" are kept (a loader that probes for an optional file must get the same answer
    // offline); partial (206) and server errors are not
    if (response.status === 200 || response.status === 404) await cache.put(request, response.clone());
    return isolated(response);
  } catch (error) {
    const kept = await cache.match(request, { ignoreSearch: request.mode === 'navigate' });
    if (kept) return isolated(kept);
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // "only-if-cached" may only be used same-origin; leave such requests to the browser
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(answer(request));
});

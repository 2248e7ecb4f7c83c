// The site's root as the page's workers see it, where models/, data/ and gpu-check/ are: the dev server serves from
// the origin's root; a built site may sit under any sub-path (relative base), and its workers and their chunks run
// from its assets/ folder, one below the root.
export function siteRoot(origin: string): string {
  return import.meta.env.DEV ? new URL('/', origin).href : new URL(/* @vite-ignore */ '../', import.meta.url).href;
}

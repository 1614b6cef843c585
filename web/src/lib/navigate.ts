/** Moves the app to `url` from outside a component (the router listens for `popstate`). */
export function navigate(url: string, replace = false): void {
  if (replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  dispatchEvent(new PopStateEvent('popstate'))
}

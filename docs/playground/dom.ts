// Looks up an element the page's HTML must have; a missing one is a bug of the page, reported by its id.
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the playground page has no #${id}`);
  return element as T;
}

// Maps the part of a URL path after /docs to a file inside the site's folder, or undefined when it cannot name one:
// bad percent-encoding, a NUL byte, a backslash or a dot segment (`..` or `.`, encoded or not) — so nothing outside
// the folder is ever reached, whatever the decoding.
import { resolve, sep } from 'node:path';

export function resolveSitePath(dir: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) return undefined;
  const root = resolve(dir);
  const target = resolve(root, `.${decoded}`);
  return target === root || target.startsWith(`${root}${sep}`) ? target : undefined;
}

// utc_timestamps: every timestamp in an answer is ISO 8601 UTC written with `Z` (the document: "Timestamps: ISO 8601
// UTC with `Z`"). A schema's `date-time` format admits any offset (`+03:00`, even `+00:00`), so the JSON body is
// walked for strings that read as a date-time and each one must end in `Z`.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** `path: value` of each date-time string not written in UTC with `Z`. */
function notZulu(value: unknown, path: string, found: string[], depth = 0): void {
  if (!value || typeof value !== 'object' || depth > 8 || found.length >= 5) return;
  for (const [key, child] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    if (typeof child === 'string') {
      if (DATE_TIME.test(child) && !child.endsWith('Z')) found.push(`${at} = ${child}`);
    } else notZulu(child, at, found, depth + 1);
  }
}

export function utc_timestamps({ exchange }: ResponseContext): Finding[] {
  const found: string[] = [];
  notZulu(exchange.response.body, '$', found);
  if (found.length === 0) return [];
  return [{ title: 'A timestamp is not UTC with Z', message: found.join('; '), severity: 'medium' }];
}

registerCheck('utc_timestamps', 'response', utc_timestamps);

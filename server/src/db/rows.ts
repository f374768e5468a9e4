// Row normalisation shared by the stores: SQLite returns booleans as 0/1, timestamps as the strings we stored and
// JSON as text; PostgreSQL returns Dates, booleans and bigints as strings. Stores map rows through these helpers.
export const now = (): string => new Date().toISOString();

/** What `Date.prototype.toISOString` writes (UTC, milliseconds): the form the server stores its own times in. */
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function toIso(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  // A time stored by this server is already in the form sent; parsing and printing it again costs more than the rest
  // of a status answer's row. Anything else (SQLite's CURRENT_TIMESTAMP, another precision) is normalised.
  if (CANONICAL_ISO.test(text)) return text;
  return new Date(text.includes('T') || text.endsWith('Z') ? text : `${text}Z`).toISOString();
}

export const toIsoOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : toIso(value);
export const toBool = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 't';
export const toInt = (value: unknown): number => Number(value);

/** Money is stored in integer minor units and sent as a number with at most 2 decimals. */
export const fromMinor = (minor: unknown): number => Number(minor) / 100;
export const toMinor = (amount: number): number => Math.round(amount * 100);

export function parseJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

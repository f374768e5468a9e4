// Size limits are configured in bytes but told to clients in megabytes, the way the contract writes them ("25 MB").

/** `26214400` → `25`, `1572864` → `1.5`, `1000` → `0.00095` (binary megabytes: 1 MB = 1,048,576 bytes). */
export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return String(mb >= 0.1 ? Math.round(mb * 10) / 10 : Number(mb.toPrecision(2)));
}

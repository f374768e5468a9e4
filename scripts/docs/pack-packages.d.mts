// Types of pack-packages.mjs for the TypeScript tests that use it.
export declare const packedWorkspaces: string[];
export declare function packLock(root: string): string;
export declare function npmPack(
  root: string,
  destination: string,
  workspaces?: string[],
): { name: string; version: string; filename: string; size: number; entryCount: number }[];
export declare function packIntoSite(
  root: string,
  site: string,
): { name: string; version: string; filename: string; latest: string; size: number; files: number }[];

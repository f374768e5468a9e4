// Types of postinstall.mjs for the TypeScript test that runs its steps.
export declare const SAMPLES: string;
export declare const samplePackages: string[];
export declare function postinstall(options?: {
  ensure?: (packages: string[], purpose: string, log: (line: string) => void) => string[];
  log?: (line: string) => void;
}): void;

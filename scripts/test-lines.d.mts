// Types of test-lines.mjs for the TypeScript tests that use it.
export interface TestLines {
  description?: string;
  reasons: Record<string, { everyLine: boolean; why: string }>;
  files: Record<string, string>;
}
export declare const root: string;
export declare const linesFile: string;
export declare function testFiles(base?: string): string[];
export declare function readTestLines(base?: string): TestLines;
export declare function runsOnEveryLine(file: string, lines?: TestLines, base?: string): boolean;
export declare function manifestProblems(files?: string[], lines?: TestLines, base?: string): string[];

// Types of generator-reserved-names.mjs for the TypeScript tests that use it.
export interface ContractNames {
  schemaNames: string[];
  operationIds: string[];
}
export declare const reservedTypeNames: Record<string, string[]>;
export declare const reservedFunctionNames: string[];
export declare function clashes(names: ContractNames): string[];
export declare function contractNames(): ContractNames;

// `scribe models make-tiny --out FILE`: writes the tiny test GGUF (random weights, a real tokenizer and a ChatML
// template; see engine/tiny-model.ts). Its own flags, parsed here, so the main CLI only routes to it.
import { parseArgs } from 'node:util';
import { writeTinyModel } from './engine/tiny-model.ts';

export const modelsUsage = 'scribe models make-tiny --out FILE  (a tiny random-weight GGUF for tests, ≈ 4.8 MB)';

export async function modelsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { out: { type: 'string' }, seed: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals[0] !== 'make-tiny' || !values.out) throw new Error(`Usage: ${modelsUsage}`);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error('--seed must be an integer');
  await writeTinyModel(values.out, seed === undefined ? {} : { seed });
  console.log(`wrote ${values.out}`);
  return 0;
}

// Phase "fuzzing": fast-check draws seeds from the run's --seed and json-schema-faker turns each into a body
// and query values for the operation; Ajv keeps only data the schema accepts (the rest is counted as filtered),
// which must then be accepted (positive_data_acceptance) — --max-examples cases per operation.
import fc from 'fast-check';
import type { RunContext } from '../core/run-context.ts';
import type { Operation } from '../core/spec.ts';
import { buildRequest, bodyMediaTypes, bodySchema, parametersIn } from './build.ts';
import { bodyIsValid, generate, valueIsValid, withFiles, withToolReferences } from './values.ts';

function generatedQuery(run: RunContext, operation: Operation, seed: number): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [i, parameter] of parametersIn(operation, 'query').entries()) {
    if (!parameter.schema || (!parameter.required && (seed + i) % 2 === 0)) continue;
    const value = generate(parameter.schema, seed + i);
    if (value !== undefined && valueIsValid(run, `${operation.id}:query:${parameter.name}`, parameter.schema, value))
      query[parameter.name] = value;
  }
  return query;
}

export async function runFuzzing(run: RunContext): Promise<void> {
  for (const [index, operation] of run.operations().entries()) {
    if (run.skipUnimplemented(operation, 'fuzzing')) continue;
    // every request media type gets its own --max-examples cases (none: one round without a body)
    const mediaTypes: Array<string | undefined> = bodyMediaTypes(operation);
    if (mediaTypes.length === 0) mediaTypes.push(undefined);
    for (const [round, mediaType] of mediaTypes.entries())
      await fuzzMediaType(run, operation, mediaType, run.options.seed * 1000 + index + round * 100_000);
    await run.activeChecks(operation, 'fuzzing');
  }
}

async function fuzzMediaType(
  run: RunContext,
  operation: Operation,
  mediaType: string | undefined,
  sampleSeed: number,
): Promise<void> {
  const seeds = fc.sample(fc.integer({ min: 1, max: 2 ** 31 - 1 }), {
    seed: sampleSeed,
    numRuns: run.options.maxExamples * 3,
  });
  const schema = mediaType ? bodySchema(operation, mediaType) : undefined;
  const shown = mediaType && bodyMediaTypes(operation).length > 1 ? `, ${mediaType}` : '';
  let sent = 0;
  let filtered = 0;
  const seen = new Set<string>();
  for (const seed of seeds) {
    if (sent >= run.options.maxExamples || run.recorder.unimplemented.has(operation.id)) break;
    const body = schema ? withToolReferences(withFiles(generate(schema, seed), schema)) : undefined;
    if (schema && (body === undefined || !bodyIsValid(run, operation, mediaType!, body))) {
      filtered += 1;
      continue;
    }
    const query = generatedQuery(run, operation, seed);
    const key = JSON.stringify([body, query]);
    if (seen.has(key)) continue;
    seen.add(key);
    sent += 1;
    await run.exchange(buildRequest(operation, { body, query, mediaType }, run.audio), {
      phase: 'fuzzing',
      label: `fuzzed (seed ${seed}${shown})`,
      operation,
      // optional query parameters combined at random may break a rule stated in prose (both dates or neither)
      expectation: Object.keys(query).length > 0 ? { kind: 'any' } : { kind: 'positive' },
    });
  }
  if (sent === 0 && schema && !run.recorder.unimplemented.has(operation.id))
    run.recorder.skipped({
      what: mediaType && shown ? `${operation.id} (${mediaType})` : operation.id,
      phase: 'fuzzing',
      reason: `json-schema-faker produced no valid body in ${filtered} tries`,
    });
}

// Phase "examples": every named example of every request body, sent as documented (a binary field carries the
// suite's audio), with the required parameters' documented values; then each optional query parameter's example on
// its own. Path ids are the documented example ids, unknown to the server (so 404 is a fine answer).
import type { RunContext } from '../core/run-context.ts';
import type { Operation } from '../core/spec.ts';
import { buildRequest, parameterExample, parametersIn, type RequestData } from './build.ts';

function requiredParameters(operation: Operation): Pick<RequestData, 'path' | 'query' | 'headers'> {
  const data = {
    path: {} as Record<string, string>,
    query: {} as Record<string, unknown>,
    headers: {} as Record<string, string>,
  };
  for (const parameter of operation.parameters) {
    const example = parameterExample(parameter);
    if (parameter.in === 'path' && example !== undefined) data.path[parameter.name] = String(example);
    if (!parameter.required || example === undefined) continue;
    if (parameter.in === 'query') data.query[parameter.name] = example;
    if (parameter.in === 'header') data.headers[parameter.name] = String(example);
  }
  return data;
}

export async function runExamples(run: RunContext): Promise<void> {
  for (const operation of run.operations()) {
    if (run.skipUnimplemented(operation, 'examples')) continue;
    const base = requiredParameters(operation);
    let sent = 0;
    for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
      const examples = Object.entries(media.examples ?? {}).map(([name, e]) => ({ name, value: e.value }));
      if (examples.length === 0 && media.example !== undefined)
        examples.push({ name: 'example', value: media.example });
      for (const example of examples) {
        const request = buildRequest(operation, { ...base, body: example.value, mediaType }, run.audio);
        await run.exchange(request, {
          phase: 'examples',
          label: `example ${example.name} (${mediaType})`,
          operation,
          expectation: { kind: 'positive' },
        });
        sent += 1;
      }
    }
    if (sent === 0) {
      if (operation.requestBody?.required) {
        run.recorder.skipped({
          what: operation.id,
          phase: 'examples',
          reason: 'the request body has no named example',
        });
      } else {
        await run.exchange(buildRequest(operation, base, run.audio), {
          phase: 'examples',
          label: 'documented parameters',
          operation,
          expectation: { kind: 'positive' },
        });
      }
    }
    // Optional query parameters, one at a time: some combine only under rules stated in prose (both dates or
    // neither), so these claim nothing about acceptance; the response checks still apply.
    for (const parameter of parametersIn(operation, 'query')) {
      const example = parameterExample(parameter);
      if (parameter.required || example === undefined) continue;
      const body = Object.values(operation.requestBody?.content ?? {})[0];
      const bodyExample = body ? Object.values(body.examples ?? {})[0]?.value : undefined;
      if (operation.requestBody?.required && bodyExample === undefined) continue;
      const request = buildRequest(
        operation,
        { ...base, query: { ...base.query, [parameter.name]: example }, body: bodyExample },
        run.audio,
      );
      await run.exchange(request, { phase: 'examples', label: `example of ${parameter.name}`, operation });
    }
    await run.activeChecks(operation, 'examples');
  }
}

// `output` of a multipart form is a JSON-encoded OutputOptions object (the contract), so it is parsed and checked
// against the contract's own schema here, with the defaults applied; JSON bodies arrive already validated.
import type { OutputOptions } from '../../../generated/client/types.gen.ts';
import { errors } from '../http/api-error.ts';
import { createContractAjv, loadContractDocument } from '../http/contract.ts';

let validate: ReturnType<ReturnType<typeof createContractAjv>['compile']> | undefined;

function validator() {
  if (!validate) {
    const document = loadContractDocument() as { components: { schemas: Record<string, object> } };
    validate = createContractAjv({ allErrors: false }).compile(document.components.schemas.OutputOptions!);
  }
  return validate;
}

export function withOutputDefaults(output: OutputOptions | undefined): OutputOptions {
  return { format: 'json', word_timestamps: true, ...output };
}

export function parseOutputField(text: string | undefined): OutputOptions {
  if (text === undefined || text === '') return withOutputDefaults(undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw errors.invalidParameter('output', 'output must be a JSON-encoded object, for example {"format":"json"}.');
  }
  const check = validator();
  if (!check(parsed)) {
    const [first] = check.errors ?? [];
    const where = [
      'output',
      ...(first?.instancePath.split('/').filter(Boolean) ?? []),
      ...(first?.keyword === 'additionalProperties' ? [String(first.params.additionalProperty)] : []),
    ].join('.');
    throw errors.invalidParameter(where, `${where} ${first?.message ?? 'is invalid'}.`);
  }
  return withOutputDefaults(parsed as OutputOptions);
}

// Bodies whose `oneOf` says "exactly one of these fields" (v2 create: `file` or `source_url`): Ajv reports such a
// mistake as a `required` error of the first variant, or as "must match exactly one schema in oneOf" when both are
// given; the client is better served by one message naming the alternatives, on the field the contract names.
import type { ErrorObject as AjvError } from 'ajv';
import { ApiError, errors } from './api-error.ts';

interface BodySchema {
  oneOf?: { required?: string[]; [key: string]: unknown }[];
}

/**
 * The field names when every variant requires exactly one field and checks nothing else (an object type naming that
 * field, its own checks left to the body's `properties`), else undefined.
 */
function alternativesOf(schema: BodySchema | undefined): string[] | undefined {
  const variants = schema?.oneOf;
  if (!variants || variants.length < 2) return undefined;
  const annotations = new Set(['required', 'type', 'properties', 'title', 'description']);
  const names = variants.map((v) =>
    Object.keys(v).every((key) => annotations.has(key)) && v.required?.length === 1 ? v.required[0] : null,
  );
  return names.every((name): name is string => name !== null) ? names : undefined;
}

export function exclusiveFieldsError(found: AjvError[], schema: BodySchema | undefined): ApiError | undefined {
  const names = alternativesOf(schema);
  if (!names) return undefined;
  const atBody = found.filter((e) => e.instancePath === '/requestBody' && e.schemaPath.includes('/requestBody/oneOf'));
  const oneOf = atBody.find((e) => e.keyword === 'oneOf');
  if (!oneOf) return undefined;
  const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  if (Array.isArray(oneOf.params.passingSchemas)) {
    return errors.invalidParameter(names.at(-1)!, `Give either ${list}, not both.`);
  }
  // No variant matched: only a plain "missing" when every variant failed for its required field alone.
  const missingOnly = atBody.every((e) => e.keyword === 'oneOf' || e.keyword === 'required');
  return missingOnly ? new ApiError(400, 'missing_parameter', `Either ${list} is required.`, names[0]) : undefined;
}

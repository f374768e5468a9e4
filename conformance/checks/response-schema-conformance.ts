// response_schema_conformance: the body validates against the schema of the declared status and media type (JSON
// parsed; text media types as a string; binary ones only non-empty; event streams per event in sse_conformance).
import { declaredMedia, declaredResponse, isJsonMedia } from '../core/declared.ts';
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { describeErrors } from '../core/spec.ts';

export function response_schema_conformance({ spec, exchange, operation }: ResponseContext) {
  const declared = declaredResponse(operation, exchange.response.status);
  const match = declaredMedia(declared, exchange.response.headers['content-type']);
  if (!operation || !match?.media.schema) return;
  const schema = match.media.schema;
  // an event stream's schema describes each event's payload: sse_conformance judges those
  if (match.mediaType === 'text/event-stream') return;
  if (schema.format === 'binary' || schema.contentEncoding === 'binary') {
    if (exchange.response.text.length > 0) return;
    return { title: 'Empty binary body', message: `The ${match.mediaType} body is empty`, severity: 'high' as const };
  }
  const json = isJsonMedia(match.mediaType.toLowerCase());
  if (json && exchange.response.body === undefined)
    return { title: 'JSON deserialization error', message: 'The body is not valid JSON', severity: 'high' as const };
  const instance = json ? exchange.response.body : exchange.response.text;
  const validate = spec.validator(`response:${operation.id}:${exchange.response.status}:${match.mediaType}`, schema);
  if (validate(instance)) return;
  return {
    title: 'Response violates schema',
    message: describeErrors(validate.errors),
    severity: 'high' as const,
  };
}

registerCheck('response_schema_conformance', 'response', response_schema_conformance);

// Reading what the document declares for a response: the response object of a status (exact, `4XX`, `default`),
// its media type matching a Content-Type (wildcards allowed), and its header values parsed for their schema.
import type { MediaSpec, Operation, ResponseSpec, Schema } from './spec.ts';

export function declaredResponse(operation: Operation | undefined, status: number): ResponseSpec | undefined {
  if (!operation) return undefined;
  const responses = operation.responses;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

export const mediaTypeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export function declaredMedia(response: ResponseSpec | undefined, contentType: string | undefined) {
  const actual = mediaTypeOf(contentType);
  for (const [declared, media] of Object.entries(response?.content ?? {})) {
    const [type, subtype] = declared.toLowerCase().split('/');
    const [actualType, actualSubtype] = actual.split('/');
    if ((type === '*' || type === actualType) && (subtype === '*' || subtype === actualSubtype))
      return { mediaType: declared, media: media as MediaSpec };
  }
  return undefined;
}

/** A header value as its schema sees it (numbers for integer and number headers). */
export function headerValue(value: string, schema: Schema | undefined): unknown {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return value;
}

export const isJsonMedia = (mediaType: string) => /^application\/([\w.+-]*\+)?json$/.test(mediaType);

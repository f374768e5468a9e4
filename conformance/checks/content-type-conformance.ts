// content_type_conformance: the Content-Type is a media type the response declares; text types say charset=utf-8.
import { declaredMedia, declaredResponse, mediaTypeOf } from '../core/declared.ts';
import { registerCheck, type ResponseContext } from '../core/registry.ts';

export function content_type_conformance({ exchange, operation }: ResponseContext) {
  const declared = declaredResponse(operation, exchange.response.status);
  if (!declared) return;
  const contentType = exchange.response.headers['content-type'];
  const documented = Object.keys(declared.content ?? {});
  if (documented.length === 0) {
    if (exchange.response.text.length === 0) return;
    return {
      title: 'Undocumented response body',
      message: `The ${exchange.response.status} response documents no body but one came (${contentType ?? 'no Content-Type'})`,
      severity: 'medium' as const,
    };
  }
  if (!contentType)
    return {
      title: 'Missing Content-Type header',
      message: `Documented: ${documented.join(', ')}`,
      severity: 'medium' as const,
    };
  const match = declaredMedia(declared, contentType);
  if (!match)
    return {
      title: 'Undocumented Content-Type',
      message: `Received: ${mediaTypeOf(contentType)}; documented: ${documented.join(', ')}`,
      severity: 'medium' as const,
    };
  if (/^text\//.test(match.mediaType) && !/charset=utf-8/i.test(contentType))
    return {
      title: 'Text without charset',
      message: `Content-Type ${contentType} does not say charset=utf-8`,
      severity: 'low' as const,
    };
}

registerCheck('content_type_conformance', 'response', content_type_conformance);

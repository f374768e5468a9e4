// "Reproduce with:" — the exact request as a curl command (credentials included, as sent). A signed v2 request
// replays only while its timestamp is inside the server's window, which the report says next to it.
import type { Exchange } from './types.ts';

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export function curlOf(request: Exchange['request']): string {
  const parts = ['curl', '-X', request.method];
  // (a multipart request's own Content-Type with its boundary is not among the headers: curl writes one)
  for (const [name, value] of Object.entries(request.headers)) parts.push('-H', quote(`${name}: ${value}`));
  const body = request.body;
  if (body?.kind === 'json') parts.push('--data-binary', quote(JSON.stringify(body.value)));
  if (body?.kind === 'raw') parts.push('--data-binary', quote(body.text));
  if (body?.kind === 'multipart') {
    for (const part of body.parts) {
      if ('file' in part)
        parts.push('-F', quote(`${part.name}=@${part.file};type=${part.contentType};filename=${part.filename}`));
      else parts.push('--form-string', quote(`${part.name}=${part.value}`));
    }
  }
  parts.push(quote(request.url));
  return parts.join(' ');
}

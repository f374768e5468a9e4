// Code samples for every operation of the bundled HTTP document (`x-codeSamples`, shown by Redoc next to each
// operation): curl and TypeScript with scribe-client for all, plus the official OpenAI SDK on the OpenAI-compatible
// endpoints. Each is made from the operation's own first request example, so a changed contract changes its samples.
// Values a reader must supply come from environment variables (`SCRIBE_BASE_URL`, `SCRIBE_API_KEY`, path ids such as
// `TRANSCRIPTION_ID`); an uploaded file is `audio.wav` in the current directory. test/docs/code-samples.test.ts runs
// every sample against the reference server.

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** The variable holding a path parameter: named after its component (`TranscriptionId` → `TRANSCRIPTION_ID`). */
function pathVariable(parameter) {
  const component = parameter.$ref?.split('/').pop();
  const base = component ?? `${parameter.name}`;
  return base
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

const resolveParameter = (document, parameter) =>
  parameter.$ref ? document.components.parameters[parameter.$ref.split('/').pop()] : parameter;

/** The kind of credentials an operation takes, from its security requirement. */
function authOf(operation) {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('BearerAuth')) return 'bearer';
  if (schemes.includes('AdminToken')) return 'admin';
  if (schemes.includes('Signature')) return 'signed';
  return 'none';
}

function firstExample(media) {
  const example = Object.values(media?.examples ?? {})[0];
  return example?.value ?? media?.example;
}

/** The body of the sample: the first example of the first media type (JSON before multipart). */
function requestBodyOf(operation) {
  const content = operation.requestBody?.content;
  if (!content) return null;
  const [type, media] = Object.entries(content)[0];
  const value = firstExample(media);
  if (value === undefined) return null;
  return { type, value };
}

const quoteShell = (text) => `'${String(text).replaceAll("'", `'\\''`)}'`;

function curlSample(path, method, operation, document) {
  const lines = [];
  const auth = authOf(operation);
  let url = '$SCRIBE_BASE_URL' + path;
  for (const raw of operation.parameters ?? []) {
    const parameter = resolveParameter(document, raw);
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, `$${pathVariable(raw)}`);
  }
  if (operation.operationId === 'downloadV2TranscriptionResult') return `curl -sS --fail-with-body "$RESULT_URL"`;
  const headers = [];
  if (auth === 'bearer') headers.push('-H "Authorization: Bearer $SCRIBE_API_KEY"');
  if (auth === 'admin') headers.push('-H "X-Admin-Token: $SCRIBE_ADMIN_TOKEN"');
  if (auth === 'signed') {
    lines.push('ts=$(date +%s)');
    lines.push(
      `sig=$(printf '%s\\n%s' "$SCRIBE_PUBLIC_KEY" "$ts" | openssl dgst -sha256 -hex -hmac "$SCRIBE_SECRET" | sed 's/^.* //')`,
    );
    headers.push('-H "X-Public-Key: $SCRIBE_PUBLIC_KEY" -H "X-Timestamp: $ts" -H "X-Signature: $sig"');
  }
  const body = requestBodyOf(operation);
  const streamed = body?.value?.stream === true;
  const parts = [
    `curl -sS${streamed ? 'N' : ''} --fail-with-body${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} "${url}"`,
  ];
  parts.push(...headers);
  if (body?.type === 'application/json') {
    parts.push(`-H 'Content-Type: application/json'`);
    parts.push(`-d ${quoteShell(JSON.stringify(body.value))}`);
  } else if (body?.type === 'multipart/form-data') {
    for (const [name, value] of Object.entries(body.value)) {
      if (value === '<binary audio>') parts.push(`-F ${name}=@audio.wav`);
      else parts.push(`-F ${quoteShell(`${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)}`);
    }
  }
  lines.push(parts.join(' \\\n  '));
  return lines.join('\n');
}

/** A value as TypeScript source: unquoted keys where they are identifiers, single-quoted strings. */
function tsValue(value, indent = '') {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) {
    const items = value.map((item) => tsValue(item, `${indent}  `));
    const flat = `[${items.join(', ')}]`;
    return flat.length <= 80 && !flat.includes('\n')
      ? flat
      : `[\n${items.map((i) => `${indent}  ${i}`).join(',\n')},\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const key = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`);
    const entries = Object.entries(value).map(([k, v]) => `${key(k)}: ${tsValue(v, `${indent}  `)}`);
    const flat = `{ ${entries.join(', ')} }`;
    return flat.length <= 80 && !flat.includes('\n')
      ? flat
      : `{\n${entries.map((e) => `${indent}  ${e}`).join(',\n')},\n${indent}}`;
  }
  return JSON.stringify(value);
}

function typescriptSample(path, method, operation, document) {
  const auth = authOf(operation);
  const id = operation.operationId;
  if (id === 'downloadV2TranscriptionResult') {
    return [
      '// A v2 result link (`results.text|json|pdf` of a completed v2 transcription) is signed and expires: fetch it as is.',
      'const response = await fetch(process.env.RESULT_URL!);',
      'if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);',
      'console.log(await response.text());',
    ].join('\n');
  }
  const imports = ['createClient', id];
  const body = requestBodyOf(operation);
  const lines = [];
  const authLine =
    auth === 'bearer'
      ? ', auth: () => process.env.SCRIBE_API_KEY'
      : auth === 'admin'
        ? ', auth: () => process.env.SCRIBE_ADMIN_TOKEN'
        : '';
  lines.push(`const client = createClient({ baseUrl: process.env.SCRIBE_BASE_URL${authLine} });`);
  if (auth === 'signed') {
    imports.push('signV2Request');
    lines.push(
      'client.interceptors.request.use((request) =>',
      '  signV2Request(request, { publicKey: process.env.SCRIBE_PUBLIC_KEY!, secret: process.env.SCRIBE_SECRET! }),',
      ');',
    );
  }
  const options = ['client'];
  const pathParams = (operation.parameters ?? [])
    .filter((raw) => resolveParameter(document, raw).in === 'path')
    .map((raw) => `${resolveParameter(document, raw).name}: process.env.${pathVariable(raw)}!`);
  if (pathParams.length > 0) options.push(`path: { ${pathParams.join(', ')} }`);
  let usesFile = false;
  if (body?.type === 'application/json') options.push(`body: ${tsValue(body.value)}`);
  if (body?.type === 'multipart/form-data') {
    const fields = Object.entries(body.value).map(([name, value]) => {
      if (value === '<binary audio>') {
        usesFile = true;
        return `${name}: new Blob([readFileSync('audio.wav')])`;
      }
      return `${name}: ${tsValue(value)}`;
    });
    options.push(`body: { ${fields.join(', ')} }`);
  }
  if (body?.value?.stream === true) options.push("parseAs: 'text'");
  lines.push(`const { data, error } = await ${id}({ ${options.join(', ')} });`);
  lines.push('if (error) throw new Error(JSON.stringify(error));');
  lines.push('console.log(data);');
  const header = [`import { ${imports.join(', ')} } from 'scribe-client';`];
  if (usesFile) header.unshift("import { readFileSync } from 'node:fs';");
  return [...header, '', ...lines].join('\n');
}

/** The official OpenAI SDK on the three OpenAI-compatible endpoints. */
function openaiSample(operation) {
  const body = requestBodyOf(operation)?.value;
  const client =
    'const openai = new OpenAI({ apiKey: process.env.SCRIBE_API_KEY, baseURL: `${process.env.SCRIBE_BASE_URL}/v3` });';
  const head = "import OpenAI from 'openai';";
  switch (operation.operationId) {
    case 'createOpenAiChatCompletion':
      return [
        head,
        '',
        client,
        `const completion = await openai.chat.completions.create(${tsValue(body)});`,
        'console.log(completion.choices[0]?.message.content, completion.usage);',
      ].join('\n');
    case 'createOpenAiEmbedding':
      return [
        head,
        '',
        client,
        `const embeddings = await openai.embeddings.create(${tsValue(body)});`,
        'console.log(embeddings.data[0]?.embedding.length, embeddings.usage);',
      ].join('\n');
    case 'createOpenAiAudioTranscription': {
      const rest = Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'file'));
      return [
        "import { createReadStream } from 'node:fs';",
        head,
        '',
        client,
        `const transcription = await openai.audio.transcriptions.create(${tsValue(rest).replace(/^\{ ?/, "{ file: createReadStream('audio.wav'), ")});`,
        'console.log(transcription.text);',
      ].join('\n');
    }
    default:
      return null;
  }
}

/** Adds `x-codeSamples` to every operation of the bundled document (in place) and returns it. */
export function addCodeSamples(document) {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      const samples = [
        { lang: 'Shell', label: 'curl', source: curlSample(path, method, operation, document) },
        { lang: 'TypeScript', label: 'scribe-client', source: typescriptSample(path, method, operation, document) },
      ];
      const openai = openaiSample(operation);
      if (openai) samples.push({ lang: 'TypeScript', label: 'OpenAI SDK', source: openai });
      operation['x-codeSamples'] = samples;
    }
  }
  return document;
}

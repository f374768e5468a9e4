// Code samples for every operation of the bundled HTTP document (`x-codeSamples`, shown by Redoc next to each
// operation): curl, TypeScript with scribe-client and Python (standard library only) for all, plus the official OpenAI
// SDK on the endpoints the SDK calls as they are (the drop-in chat, embeddings and audio transcriptions, and the model
// list, whose path and shape are OpenAI's). Each is made from the operation's own first request example and ends with
// the answer it prints, as a comment made from the operation's first success example, so a changed contract changes
// its samples. Values a reader must supply come from environment variables (`SCRIBE_BASE_URL`, `SCRIBE_API_KEY`, path
// ids such as `TRANSCRIPTION_ID`); an uploaded file is `audio.wav` in the current directory.
// test/docs/code-samples.test.ts runs every sample against the reference server and checks what it prints.

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** The variable holding a path parameter: named after its component (`TranscriptionId` → `TRANSCRIPTION_ID`). */
function pathVariable(parameter) {
  const component = parameter.$ref?.split('/').pop();
  const base = component ?? `${parameter.name}`;
  return base
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** Follows a local `#/components/...` reference of the bundled document. */
const resolveRef = (document, node) =>
  node?.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((at, key) => at?.[key], document)
    : node;

const resolveParameter = (document, parameter) => resolveRef(document, parameter);

/**
 * The required query parameters, each with the variable holding it (named after its component like a path id:
 * `V2LinkSignature` → `V2_LINK_SIGNATURE`) and whether it is a number.
 */
const requiredQuery = (operation, document) =>
  (operation.parameters ?? [])
    .map((raw) => ({ raw, parameter: resolveParameter(document, raw) }))
    .filter(({ parameter }) => parameter.in === 'query' && parameter.required)
    .map(({ raw, parameter }) => ({
      name: parameter.name,
      variable: pathVariable(raw),
      numeric: ['integer', 'number'].includes(parameter.schema?.type),
    }));

/** Where the variables of a v2 result link's parameters come from, said above a sample that needs them. */
const linkNote = (prefix, operation, document) =>
  requiredQuery(operation, document).some(({ variable }) => variable.startsWith('V2_LINK_'))
    ? [
        `${prefix} TRANSCRIPTION_ID, V2_LINK_EXPIRES and V2_LINK_SIGNATURE: the id, expires and signature of the link`,
        `${prefix} results.${linkFormatOf(operation)} of GET /v2/transcriptions/{id}.`,
      ]
    : [];
const linkFormatOf = (operation) => operation.operationId.replace('downloadV2Transcription', '').toLowerCase();

/** The file extension of an answer that is a binary file (`format: binary`), else null. */
function binaryExtensionOf(operation, document) {
  const { type } = successOf(operation, document);
  const [, raw] = Object.entries(operation.responses).find(([code]) => /^2/.test(code));
  const schema = resolveRef(document, raw).content?.[type]?.schema;
  return schema?.format === 'binary' ? type.split('/').pop() : null;
}

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

/**
 * How the operation answers when it succeeds: status, media type and the first example of its first media type; for
 * a server-sent event stream, its events (every example of the media type: the payload of one `data:` line each).
 */
function successOf(operation, document) {
  const [status, raw] = Object.entries(operation.responses).find(([code]) => /^2/.test(code));
  const [type, media] = Object.entries(resolveRef(document, raw).content ?? {})[0] ?? [];
  if (type === 'text/event-stream') {
    // A failure in the middle of a stream (`{"error": …}`) is an example of the media type, not of a success.
    const events = Object.values(media.examples ?? {})
      .filter(({ value }) => !(value && typeof value === 'object' && 'error' in value))
      .map(({ value }) => (typeof value === 'string' ? value : JSON.stringify(value)));
    return { status, type, example: events.map((event) => `data: ${event}`).join('\n') };
  }
  return { status, type, example: media ? firstExample(media) : undefined };
}

/** Whether the answer is a server-sent event stream: the operation answers only so, or the example asks for one. */
const answersStream = (operation, document) =>
  successOf(operation, document).type === 'text/event-stream' || requestBodyOf(operation)?.value?.stream === true;

/** Lines longer examples are cut to: a comment under a sample shows the shape of the answer, not all of it. */
const expectedLines = 12;

/**
 * The answer a sample prints, as comment lines (`prefix` is the language's comment mark): the success status and media
 * type, then the example, cut after `expectedLines` lines. `value` replaces the example where a sample prints part of it.
 */
function expectedComment(prefix, { status, type, example }, value = example) {
  if (!type) return [`${prefix} Expected: ${status}, no body.`];
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  let lines = text.split('\n');
  if (lines.length > expectedLines) lines = [...lines.slice(0, expectedLines), '…'];
  return [`${prefix} Expected output (${status} ${type}), for example:`, ...lines.map((line) => `${prefix} ${line}`)];
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
  if (operation.operationId === 'downloadV2TranscriptionResult')
    return [`curl -sS --fail-with-body "$RESULT_URL"`, ...expectedComment('#', successOf(operation, document))].join(
      '\n',
    );
  const query = requiredQuery(operation, document);
  if (query.length > 0) url += `?${query.map(({ name, variable }) => `${name}=$${variable}`).join('&')}`;
  lines.push(...linkNote('#', operation, document));
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
  const streamed = answersStream(operation, document);
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
  const binary = binaryExtensionOf(operation, document);
  // A binary file is saved; what is printed is its first bytes (the file's signature, such as `%PDF-1.3`).
  if (binary) parts.push(`-o transcript.${binary} && head -c 8 transcript.${binary} && echo`);
  lines.push(parts.join(' \\\n  '));
  lines.push(...expectedComment('#', successOf(operation, document)));
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
      ...expectedComment('//', successOf(operation, document)),
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
  const query = requiredQuery(operation, document).map(({ name, variable, numeric }) =>
    numeric ? `${name}: Number(process.env.${variable})` : `${name}: process.env.${variable}!`,
  );
  if (query.length > 0) options.push(`query: { ${query.join(', ')} }`);
  lines.unshift(...linkNote('//', operation, document));
  const binary = binaryExtensionOf(operation, document);
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
  if (successOf(operation, document).type === 'text/event-stream') {
    // The SDK function of an event stream returns the events as they arrive (each `data:` parsed as JSON when it is
    // JSON). By default it reconnects after a failure, again and again: one attempt, and the failure thrown.
    options.push('sseMaxRetryAttempts: 1', 'onSseError: (error) => {\n    throw error;\n  }');
    lines.push(
      `const { stream } = await ${id}({\n  ${options.map((o) => o.replaceAll('\n', '\n  ')).join(',\n  ')},\n});`,
    );
    lines.push(
      "for await (const event of stream) console.log(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}`);",
    );
    lines.push(...expectedComment('//', successOf(operation, document)));
    return [`import { ${imports.join(', ')} } from 'scribe-client';`, '', ...lines].join('\n');
  }
  if (body?.value?.stream === true) options.push("parseAs: 'text'");
  lines.push(`const { data, error } = await ${id}({ ${options.join(', ')} });`);
  lines.push('if (error) throw new Error(JSON.stringify(error));');
  const answer = successOf(operation, document).type ?? '';
  if (binary)
    // The client hands a binary file out as a Blob: saved, and its first bytes (the file's signature) printed.
    lines.push(
      'const bytes = new Uint8Array(await data.arrayBuffer());',
      `writeFileSync('transcript.${binary}', bytes);`,
      'console.log(new TextDecoder().decode(bytes.subarray(0, 8)));',
    );
  else if (body?.value?.stream === true || answer.startsWith('text/') || answer === 'application/x-subrip')
    lines.push('console.log(data);');
  else lines.push('console.log(JSON.stringify(data, null, 2));');
  lines.push(...expectedComment('//', successOf(operation, document)));
  const header = [`import { ${imports.join(', ')} } from 'scribe-client';`];
  const fsImports = [...(usesFile ? ['readFileSync'] : []), ...(binary ? ['writeFileSync'] : [])];
  if (fsImports.length > 0) header.unshift(`import { ${fsImports.join(', ')} } from 'node:fs';`);
  return [...header, '', ...lines].join('\n');
}

/**
 * The official OpenAI SDK where it calls an operation as it is: the drop-in chat, embeddings and audio transcriptions,
 * and the models (`GET /v3/models` and `GET /v3/models/{id}` are the SDK's `models.list()` and `models.retrieve(id)`
 * under `baseURL = <server>/v3`, in OpenAI's shape).
 * Each prints what the SDK returns as JSON, so the test checks it against the contract like the other samples.
 */
function openaiSample(operation, document) {
  const body = requestBodyOf(operation)?.value;
  const success = successOf(operation, document);
  const client =
    'const openai = new OpenAI({ apiKey: process.env.SCRIBE_API_KEY, baseURL: `${process.env.SCRIBE_BASE_URL}/v3` });';
  const head = "import OpenAI from 'openai';";
  const print = (name) => `console.log(JSON.stringify(${name}, null, 2));`;
  switch (operation.operationId) {
    case 'createOpenAiChatCompletion':
      return [
        head,
        '',
        client,
        `const completion = await openai.chat.completions.create(${tsValue(body)});`,
        print('completion'),
        ...expectedComment('//', success),
      ].join('\n');
    case 'createOpenAiEmbedding':
      return [
        head,
        '',
        client,
        `const embeddings = await openai.embeddings.create(${tsValue(body)});`,
        print('embeddings'),
        ...expectedComment('//', success),
      ].join('\n');
    case 'createOpenAiAudioTranscription': {
      const rest = Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'file'));
      return [
        "import { createReadStream } from 'node:fs';",
        head,
        '',
        client,
        `const transcription = await openai.audio.transcriptions.create(${tsValue(rest).replace(/^\{ ?/, "{ file: createReadStream('audio.wav'), ")});`,
        print('transcription'),
        ...expectedComment('//', success),
      ].join('\n');
    }
    case 'getModel':
      return [
        head,
        '',
        client,
        'const model = await openai.models.retrieve(process.env.MODEL_ID!);',
        print('model'),
        ...expectedComment('//', success),
      ].join('\n');
    case 'listModels':
      return [
        head,
        '',
        client,
        '// The SDK pages through the list; `data` holds the models of this page (all of them: the list is short).',
        'const models = await openai.models.list();',
        print('models.data'),
        ...expectedComment('//', success, success.example?.data),
      ].join('\n');
    default:
      return null;
  }
}

/** A JSON value as Python source (a literal json.dumps encodes back to the same JSON). */
function pyValue(value, indent = '') {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    const flat = `[${value.map((item) => pyValue(item, inner)).join(', ')}]`;
    return flat.length <= 80
      ? flat
      : `[\n${value.map((item) => `${inner}${pyValue(item, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pyValue(v, inner)}`);
  const flat = `{${entries.join(', ')}}`;
  return flat.length <= 80 ? flat : `{\n${entries.map((e) => `${inner}${e},`).join('\n')}\n${indent}}`;
}

/**
 * Python with the standard library only (urllib, json, hmac), so a reader needs nothing from another registry. A
 * signed v2/v1 operation signs as docs/signing.md says: hex HMAC-SHA256 of `public_key\ntimestamp` keyed by the
 * secret. An error answer ends the script with its status and body on one line.
 */
function pythonSample(path, method, operation, document) {
  const auth = authOf(operation);
  const imports = new Set(['json', 'os', 'urllib.error', 'urllib.request']);
  const lines = [];
  let url = `f"{os.environ['SCRIBE_BASE_URL']}${path}"`;
  for (const raw of operation.parameters ?? []) {
    const parameter = resolveParameter(document, raw);
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, `{os.environ['${pathVariable(raw)}']}`);
  }
  const query = requiredQuery(operation, document);
  if (query.length > 0)
    url = url.replace(/"$/, `?${query.map(({ name, variable }) => `${name}={os.environ['${variable}']}`).join('&')}"`);
  if (operation.operationId === 'downloadV2TranscriptionResult') url = 'os.environ["RESULT_URL"]';
  lines.push(...linkNote('#', operation, document));
  const binary = binaryExtensionOf(operation, document);
  lines.push(`url = ${url}`);
  lines.push('headers = {}');
  if (auth === 'bearer') lines.push('headers["Authorization"] = f"Bearer {os.environ[\'SCRIBE_API_KEY\']}"');
  if (auth === 'admin') lines.push('headers["X-Admin-Token"] = os.environ["SCRIBE_ADMIN_TOKEN"]');
  if (auth === 'signed') {
    for (const name of ['hashlib', 'hmac', 'time']) imports.add(name);
    lines.push(
      'public_key, secret = os.environ["SCRIBE_PUBLIC_KEY"], os.environ["SCRIBE_SECRET"]',
      'timestamp = str(int(time.time()))',
      'canonical = f"{public_key}\\n{timestamp}"',
      'signature = hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()',
      'headers.update({"X-Public-Key": public_key, "X-Timestamp": timestamp, "X-Signature": signature})',
    );
  }
  const body = requestBodyOf(operation);
  let data = 'None';
  if (body?.type === 'application/json') {
    lines.push(`body = ${pyValue(body.value)}`);
    lines.push('headers["Content-Type"] = "application/json"');
    data = 'json.dumps(body).encode()';
  } else if (body?.type === 'multipart/form-data') {
    imports.add('uuid');
    const fields = Object.entries(body.value).filter(([, value]) => value !== '<binary audio>');
    const file = Object.entries(body.value).find(([, value]) => value === '<binary audio>')?.[0];
    lines.push(
      '# multipart/form-data by hand: the standard library has no encoder for it.',
      'boundary = uuid.uuid4().hex',
      `fields = ${pyValue(Object.fromEntries(fields.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)])))}`,
      'parts = [',
      '    f\'--{boundary}\\r\\nContent-Disposition: form-data; name="{name}"\\r\\n\\r\\n{value}\\r\\n\'.encode()',
      '    for name, value in fields.items()',
      ']',
    );
    if (file)
      lines.push(
        'with open("audio.wav", "rb") as audio:',
        '    parts.append(',
        `        f'--{boundary}\\r\\nContent-Disposition: form-data; name="${file}"; filename="audio.wav"\\r\\n'`,
        '        f"Content-Type: application/octet-stream\\r\\n\\r\\n".encode() + audio.read() + b"\\r\\n"',
        '    )',
      );
    lines.push(
      'parts.append(f"--{boundary}--\\r\\n".encode())',
      'headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"',
    );
    data = 'b"".join(parts)';
  }
  const streamed = answersStream(operation, document);
  lines.push(
    `request = urllib.request.Request(url, data=${data}, headers=headers, method="${method.toUpperCase()}")`,
    'try:',
    '    with urllib.request.urlopen(request) as response:',
  );
  if (streamed)
    lines.push(
      '        for line in response:  # server-sent events, each `data:` line as the tokens are generated',
      '            print(line.decode().rstrip("\\n"), flush=True)',
    );
  else if (binary)
    // A binary file is saved; what is printed is its first bytes (the file's signature, such as `%PDF-1.3`).
    lines.push(
      '        content = response.read()',
      `    with open("transcript.${binary}", "wb") as file:`,
      '        file.write(content)',
    );
  else
    lines.push(
      '        text = response.read().decode()',
      '        is_json = response.headers.get_content_type() == "application/json"',
    );
  lines.push(
    'except urllib.error.HTTPError as error:',
    '    raise SystemExit(f"{error.code} {error.read().decode()}")',
  );
  if (binary) lines.push('print(content[:8].decode("latin-1"))');
  else if (!streamed) lines.push('print(json.dumps(json.loads(text), indent=2) if is_json else text)');
  lines.push(...expectedComment('#', successOf(operation, document)));
  return [...[...imports].sort().map((name) => `import ${name}`), '', ...lines].join('\n');
}

/**
 * The reference's language switcher: Redoc shows a sample only when its label (lower-cased) is a key of this list,
 * and its default list has no TypeScript and no OpenAI SDK. `lang` picks the highlighting.
 */
export const sampleLanguages = [
  { label: 'curl', lang: 'bash' },
  { label: 'TypeScript', lang: 'typescript' },
  { label: 'Python', lang: 'python' },
  { label: 'OpenAI SDK', lang: 'typescript' },
  { label: 'Payload', lang: 'payload' },
];

/** Adds `x-codeSamples` to every operation of the bundled document (in place) and returns it. */
export function addCodeSamples(document) {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      const samples = [
        { lang: 'Shell', label: 'curl', source: curlSample(path, method, operation, document) },
        { lang: 'TypeScript', label: 'TypeScript', source: typescriptSample(path, method, operation, document) },
        { lang: 'Python', label: 'Python', source: pythonSample(path, method, operation, document) },
      ];
      const openai = openaiSample(operation, document);
      if (openai) samples.push({ lang: 'TypeScript', label: 'OpenAI SDK', source: openai });
      operation['x-codeSamples'] = samples;
    }
  }
  return document;
}

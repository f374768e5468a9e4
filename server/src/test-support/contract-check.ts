// Client-side contract check for the server tests: every response a test receives is compared with the contract
// (status declared for the operation, body schema, required headers, JSON content type, X-Request-Id), and error
// bodies are checked for stack traces. The server validates only its handlers' success bodies (outside production);
// this also covers error bodies, headers and responses of unrouted paths. Validators compile lazily, per response.
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createContractAjv, inlineReferences, loadContractDocument } from '../http/contract.ts';

type Schema = Record<string, unknown>;
interface HeaderSpec {
  required?: boolean;
  schema?: Schema;
}
interface ResponseSpec {
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, { schema?: Schema }>;
}
interface OperationSpec {
  operationId: string;
  responses: Record<string, ResponseSpec>;
}
interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  static: boolean;
  operation: OperationSpec;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

const methods = ['get', 'put', 'post', 'delete', 'patch'];
const STACK_TRACE = /\n\s+at\s|\bat\s+\S+\s+\(|\.(?:ts|js|mjs|cjs):\d+|node:internal|node_modules/;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

let loaded: { routes: Route[]; components: Record<string, Schema>; ajv: Ajv2020 } | undefined;
const validators = new Map<string, ValidateFunction>();

function contract() {
  if (loaded) return loaded;
  const document = inlineReferences(loadContractDocument()) as unknown as {
    paths: Record<string, Record<string, OperationSpec>>;
    components: { schemas: Record<string, Schema> };
  };
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('');
      routes.push({ method, template, pattern: new RegExp(`^${source}$`), static: !template.includes('{'), operation });
    }
  }
  const ajv = createContractAjv({ allErrors: true });
  loaded = { routes, components: document.components.schemas, ajv };
  return loaded;
}

function validator(key: string, schema: Schema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = contract().ajv.compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** The operation a request reaches: a static path wins over a templated one, as in the server's router. */
export function matchOperation(method: string, path: string): OperationSpec | undefined {
  const candidates = contract().routes.filter((r) => r.method === method.toLowerCase() && r.pattern.test(path));
  return (candidates.find((r) => r.static) ?? candidates[0])?.operation;
}

// The contract's error bodies: the validation body on /v2 and /v1's usage statistics, the v3 envelope elsewhere.
const versionOf = (path: string) => (path.startsWith('/v2/') || path.startsWith('/v1/billing/') ? 'v2' : 'v3');

function describe(errors: ValidateFunction['errors']): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
    .join('; ');
}

/** Throws a ContractViolation when the response does not follow the contract. */
export function checkResponse(
  request: { method: string; path: string },
  response: { status: number; headers: Headers; text: string; body: unknown },
): void {
  const where = `${request.method.toUpperCase()} ${request.path} → ${response.status}`;
  const fail = (message: string): never => {
    throw new ContractViolation(`contract violation (${where}): ${message}\nbody: ${response.text.slice(0, 600)}`);
  };

  const requestId = response.headers.get('x-request-id');
  if (!requestId || !REQUEST_ID.test(requestId)) fail(`X-Request-Id missing or malformed: ${String(requestId)}`);
  if (response.status >= 400 && STACK_TRACE.test(response.text)) fail('the error body contains a stack trace');
  const contentType = response.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim();
  const operation = matchOperation(request.method, request.path);
  const declared = operation
    ? (operation.responses[String(response.status)] ?? operation.responses.default)
    : undefined;
  // A text media type the operation declares for this status (subtitles): the body is checked as a string.
  const textSchema =
    mediaType !== 'application/json' && declared?.content?.[mediaType]
      ? declared.content[mediaType]!.schema
      : undefined;
  // A binary one (the v2 PDF): the declared media type and a non-empty body; its content is the test's to check.
  if ((textSchema as { format?: string } | undefined)?.format === 'binary') {
    if (response.text.length === 0) fail(`the ${mediaType} body is empty`);
    return;
  }
  // Server-sent events: every event is one `data: <payload>` line whose payload (JSON, or the literal [DONE])
  // matches the declared schema. Chat streams have only data lines and end with [DONE]; the Responses API's streams
  // name every event with an `event:` line before it, the payload's `type`, and have no [DONE].
  if (textSchema && mediaType === 'text/event-stream') {
    const events = response.text.split('\n\n');
    if (events.pop() !== '') fail('the stream does not end with a blank line');
    const named = events.some((event) => event.startsWith('event: '));
    if (!named && events.at(-1) !== 'data: [DONE]') fail('the last event is not data: [DONE]');
    const validate = validator(`${operation!.operationId}:${response.status}:${mediaType}`, textSchema);
    for (const whole of events) {
      let event = whole;
      let name: string | undefined;
      if (named) {
        const line = /^event: ([^\n]+)\n/.exec(whole);
        if (!line) fail(`an event of a stream of named events has no event: line: ${whole}`);
        name = line![1];
        event = whole.slice(line![0].length);
      }
      if (!event.startsWith('data: ') || event.includes('\n')) fail(`an event is not one data line: ${event}`);
      const data = event.slice('data: '.length);
      if (name !== undefined && data === '[DONE]') fail('a stream of named events has a [DONE] line');
      let payload: unknown = data;
      if (data !== '[DONE]') {
        try {
          payload = JSON.parse(data);
        } catch {
          fail(`an event's payload is not JSON: ${data}`);
        }
      }
      if (!validate(payload))
        fail(`event ${data.slice(0, 200)} does not match its schema: ${describe(validate.errors)}`);
      if (name !== undefined && (payload as { type?: unknown }).type !== name)
        fail(`event: ${name} names a payload of another type: ${data.slice(0, 200)}`);
    }
    return;
  }
  if (textSchema) {
    if (!/charset=utf-8/i.test(contentType)) fail(`Content-Type ${contentType} does not say charset=utf-8`);
    const validate = validator(`${operation!.operationId}:${response.status}:${mediaType}`, textSchema);
    if (!validate(response.text)) fail(`text body does not match its schema: ${describe(validate.errors)}`);
    return;
  }
  if (!/^application\/json\b/.test(contentType)) fail(`Content-Type is ${contentType || '(none)'}, not JSON`);
  if (response.body === undefined) fail('the body is not JSON');

  if (operation && declared) {
    const schema = declared.content?.['application/json']?.schema;
    if (!schema) fail(`${operation.operationId} declares no JSON body for ${response.status}`);
    const validate = validator(`${operation.operationId}:${response.status}`, schema!);
    if (!validate(response.body))
      fail(`body does not match ${operation.operationId} ${response.status}: ${describe(validate.errors)}`);
    for (const [name, header] of Object.entries(declared.headers ?? {})) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) fail(`required header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const type = header.schema.type;
      const parsed = type === 'integer' || type === 'number' ? Number(value) : value;
      const check = validator(`${operation.operationId}:${response.status}:${name}`, header.schema);
      if (!check(parsed)) fail(`header ${name}: ${value} does not match its schema: ${describe(check.errors)}`);
    }
    return;
  }
  if (operation && !declared) fail(`status ${response.status} is not declared for ${operation.operationId}`);
  // No operation (404 route, 405): the body must be the version's error envelope.
  if (response.status < 400) fail('a success status outside every operation');
  const envelope = versionOf(request.path) === 'v2' ? 'V2ErrorResponse' : 'ErrorResponse';
  const validate = validator(`component:${envelope}`, contract().components[envelope]!);
  if (!validate(response.body)) fail(`body is not a ${envelope}: ${describe(validate.errors)}`);
}

// Names that client generators emit for their own runtime (or import from TypeScript's and the DOM's globals) beside
// the types they make from our schemas. A schema with one of these names clashes with the generator's own symbol: the
// generated file does not compile, or the generator renames the type (`ResponseFormat2`), or user code that uses the
// generator's option of that name stops compiling. `npm run lint:spec` refuses schema names from this list; operation
// ids are checked against the runtime functions, since generators name their call functions after them.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readYaml, root } from './spec-tools.mjs';

/** Type names, by where they come from (checked in their PascalCase form, case-insensitively). */
export const reservedTypeNames = {
  'TypeScript and DOM globals used by generated clients': [
    'AbortSignal',
    'Array',
    'Blob',
    'Body',
    'Boolean',
    'Date',
    'Error',
    'File',
    'FormData',
    'Headers',
    'Map',
    'Number',
    'Object',
    'Omit',
    'Partial',
    'Pick',
    'Promise',
    'ReadableStream',
    'Readonly',
    'Record',
    'Request',
    'RequestInit',
    'Required',
    'Response',
    'Set',
    'String',
    'Symbol',
    'URL',
    'URLSearchParams',
  ],
  'openapi-typescript (top-level exports) and openapi-fetch': [
    'paths',
    'webhooks',
    'components',
    'operations',
    'external',
    'Client',
    'ClientOptions',
    'FetchOptions',
    'FetchResponse',
    'Middleware',
    'ParseAs',
    'RequestOptions',
    'HeadersOptions',
    'QuerySerializer',
    'BodySerializer',
    'PathBasedClient',
  ],
  '@hey-api/openapi-ts client-fetch and core': [
    'ArraySeparatorStyle',
    'ArrayStyle',
    'Auth',
    'AuthToken',
    'BodySerializer',
    'Client',
    'ClientOptions',
    'Config',
    'CreateClientConfig',
    'Field',
    'Fields',
    'FieldsConfig',
    'HttpMethod',
    'JsonValue',
    'Middleware',
    'ObjectStyle',
    'OmitNever',
    'Options',
    'PathSerializer',
    'QuerySerializer',
    'QuerySerializerOptions',
    'RequestOptions',
    'RequestResult',
    'ResolvedRequestOptions',
    'ResponseStyle',
    'SerializerOptions',
    'ServerSentEventsOptions',
    'ServerSentEventsResult',
    'StreamEvent',
    'TDataShape',
  ],
  'orval (fetch and axios clients, mutators)': [
    'BodyType',
    'SecondParameter',
    'AxiosError',
    'AxiosInstance',
    'AxiosRequestConfig',
    'AxiosResponse',
  ],
  'kubb plugin-client': ['RequestConfig', 'ResponseConfig', 'ResponseErrorConfig'],
  'swagger-typescript-api http-client': [
    'Api',
    'ApiConfig',
    'CancelToken',
    'ContentType',
    'FullRequestParams',
    'HttpClient',
    'HttpResponse',
    'QueryParamsType',
    'RequestParams',
    'ResponseFormat',
    'Params',
  ],
};

/** Runtime functions of the generators; an operation id with one of these names shadows it in the generated SDK. */
export const reservedFunctionNames = [
  'client',
  'createClient',
  'createConfig',
  'createPathBasedClient',
  'wrapAsPathBasedClient',
  'buildUrl',
  'fetch',
  'request',
  'mergeHeaders',
  'formDataBodySerializer',
  'jsonBodySerializer',
  'urlSearchParamsBodySerializer',
];

const pascal = (name) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

const reserved = new Map();
for (const [source, names] of Object.entries(reservedTypeNames)) {
  for (const name of names) {
    const key = pascal(name).toLowerCase();
    reserved.set(key, [...(reserved.get(key) ?? []), source]);
  }
}
const reservedFunctions = new Set(reservedFunctionNames.map((name) => name.toLowerCase()));

/** One problem line per schema name or operation id that clashes with a generator's runtime. */
export function clashes({ schemaNames, operationIds }) {
  const problems = [];
  for (const name of schemaNames) {
    const sources = reserved.get(pascal(name).toLowerCase());
    if (sources) problems.push(`schema ${name} is named like a runtime type of ${sources.join('; ')}`);
  }
  for (const id of operationIds) {
    if (reservedFunctions.has(id.toLowerCase()))
      problems.push(`operationId ${id} is named like a generator's runtime function`);
  }
  return problems;
}

const yamlFiles = (dir) => readdirSync(join(root, dir)).filter((file) => file.endsWith('.yaml'));

/**
 * The names generators see in the source documents: schema files (Redocly names bundled components after them), their
 * titles (some generators name types after `title`), inline `components.schemas` keys, and operation ids.
 */
export function contractNames() {
  const schemaNames = new Set();
  for (const dir of ['openapi/components/schemas', 'asyncapi/schemas']) {
    for (const file of yamlFiles(dir)) {
      schemaNames.add(basename(file, '.yaml'));
      const title = readYaml(join(dir, file))?.title;
      if (typeof title === 'string') schemaNames.add(title);
    }
  }
  for (const document of ['openapi/openapi.yaml', 'asyncapi/asyncapi.yaml']) {
    for (const name of Object.keys(readYaml(document)?.components?.schemas ?? {})) schemaNames.add(name);
  }
  const operationIds = [];
  for (const file of yamlFiles('openapi/paths')) {
    for (const operation of Object.values(readYaml(join('openapi/paths', file)) ?? {})) {
      if (typeof operation?.operationId === 'string') operationIds.push(operation.operationId);
    }
  }
  return { schemaNames: [...schemaNames].sort(), operationIds };
}

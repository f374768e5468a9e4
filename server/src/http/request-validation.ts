// Request validation with openapi-backend's compiled validators for the operation, fed with what the dispatcher has
// already parsed (path parameters from the compiled router, Koa's query, the headers, the JSON body).
// openapi-backend's own validateRequest re-parses the whole request on every call (path template matching, header
// normalisation with lodash, cookie parsing, deep copies), about a tenth of a simple request's time; the contract
// has no cookie parameters and no `content` or non-exploded query parameters, so none of that parsing is needed.
import type { ErrorObject as AjvError, ValidateFunction } from 'ajv';
import type { OpenAPIBackend } from 'openapi-backend';
import { createContractAjv, type ContractOperation } from './contract.ts';
import type { OperationPlan } from './operation-plan.ts';

export interface RequestInput {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  mediaType: string;
}

export interface RequestValidation {
  errors: AjvError[];
  /** The query with values coerced to the contract's types (numbers, booleans, arrays). */
  query: Record<string, unknown>;
}

type BodyValidator = ValidateFunction;

/**
 * openapi-backend compiles one body validator per operation, from the JSON schema when the operation accepts JSON
 * and multipart both (async create): a multipart form is then checked against its own schema, compiled here once.
 */
function multipartValidators() {
  const compiled = new Map<string, BodyValidator | null>();
  return (operation: ContractOperation): BodyValidator | null => {
    const id = operation.operationId!;
    if (!compiled.has(id)) {
      const content = (operation.requestBody as { content?: Record<string, { schema?: object }> } | undefined)?.content;
      const schema = content?.['multipart/form-data']?.schema;
      compiled.set(
        id,
        schema && content?.['application/json']
          ? createContractAjv().compile({
              type: 'object',
              properties: { requestBody: schema },
              required: (operation.requestBody as { required?: boolean }).required ? ['requestBody'] : [],
            })
          : null,
      );
    }
    return compiled.get(id)!;
  };
}

export function createRequestValidator(api: OpenAPIBackend) {
  const multipartOf = multipartValidators();

  return function validateRequest(
    operation: ContractOperation,
    plan: OperationPlan,
    input: RequestInput,
  ): RequestValidation {
    // Copies, because Ajv coerces parameter values in place. Of the headers only the declared ones: the contract's
    // header schemas allow any other header, so validating a copy of every header checked nothing more.
    const query: Record<string, unknown> = { ...input.query };
    for (const name of plan.arrayQueryParams) {
      if (typeof query[name] === 'string') query[name] = [query[name]];
    }
    const header: Record<string, unknown> = {};
    for (const name of plan.headerParams) {
      if (input.headers[name] !== undefined) header[name] = input.headers[name];
    }
    const parameters: Record<string, unknown> = {
      path: { ...input.params },
      query,
      header,
      cookie: {},
    };
    if (typeof input.body === 'object' || input.mediaType === 'application/json') parameters.requestBody = input.body;
    let validators = api.validator.getRequestValidatorsForOperation(plan.operationId);
    const multipart = input.mediaType === 'multipart/form-data' ? multipartOf(operation) : null;
    // The first compiled validator is the (JSON) body's; the form's own replaces it.
    if (multipart) validators = [multipart, ...validators.slice(1)];
    let errors: AjvError[] | undefined;
    for (const validate of validators) {
      validate(parameters);
      if (validate.errors) (errors ??= []).push(...validate.errors);
    }
    return { errors: errors ?? [], query: parameters.query as Record<string, unknown> };
  };
}

export type RequestValidator = ReturnType<typeof createRequestValidator>;

// Spectral function for `.spectral.yaml`: the OWASP ruleset's size rules (api4:2023 string-limit, array-limit,
// integer-limit) applied to what a client sends, a request body's or a parameter's schema. It walks the schema the
// way a validator does (properties, items, variants) and not into `examples`, `default` or `const`, which are values:
// the ruleset's own JSONPath walk took an example's JSON schema for part of the contract.
const subschemaKeys = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'unevaluatedProperties'];
const listKeys = ['oneOf', 'anyOf', 'allOf', 'prefixItems'];
const mapKeys = ['properties', 'patternProperties', '$defs'];

const typesOf = (schema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

function problemsOf(schema, exemptFormats) {
  const types = typesOf(schema);
  const problems = [];
  const valueSet = 'enum' in schema || 'const' in schema;
  const exempt = exemptFormats.includes(schema.format);
  if (types.includes('string') && !valueSet && !exempt && schema.maxLength === undefined)
    problems.push('A request string must state maxLength (or enum/const).');
  if (types.includes('array') && schema.maxItems === undefined) problems.push('A request array must state maxItems.');
  if (types.includes('integer') && !valueSet) {
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined)
      problems.push('A request integer must state minimum.');
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined)
      problems.push('A request integer must state maximum.');
  }
  return problems;
}

/** `options.exemptFormats`: string formats whose size is bounded elsewhere (a reason for each is in .spectral.yaml). */
export default function requestBounds(schema, options, context) {
  const exemptFormats = options?.exemptFormats ?? [];
  const results = [];
  const seen = new Set();
  const walk = (node, path) => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    for (const message of problemsOf(node, exemptFormats)) results.push({ message, path });
    for (const key of subschemaKeys) walk(node[key], [...path, key]);
    for (const key of listKeys) (node[key] ?? []).forEach((sub, i) => walk(sub, [...path, key, i]));
    for (const key of mapKeys)
      for (const [name, sub] of Object.entries(node[key] ?? {})) walk(sub, [...path, key, name]);
  };
  walk(schema, [...context.path]);
  return results;
}

// Which guide explains which operation, both ways. Every operation has one guide that explains its tag (the map
// below, checked against the contract's tags so a new tag cannot go without a guide); a guide that uses an
// operation's path elsewhere (in a command or a sentence) is listed too. The reference pages get the links through the
// operation descriptions at build time (the contract itself is not changed), the guides through a closing section.

/** The guide that explains the operations of each tag of the HTTP contract. */
const guideOfTag = {
  Transcriptions: 'transcription',
  Streaming: 'streaming',
  Webhooks: 'webhooks',
  Chat: 'openai-sdk',
  Embeddings: 'openai-sdk',
  Models: 'openai-sdk',
  'OpenAI compatibility': 'openai-sdk',
  Billing: 'billing',
  Usage: 'billing',
  Keys: 'authentication',
  Health: 'configuration',
  'Transcriptions v2': 'authentication',
  'Chat v2': 'authentication',
  Admin: 'quickstart',
};

const methods = ['get', 'put', 'post', 'delete', 'patch'];

/** Redoc's hash route of an operation (the route its sidebar links open), relative to the site's root. */
export const referenceRoute = (operation) =>
  `api.html#/${operation.tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}/${operation.operationId.toLowerCase()}`;

/** The operations of the bundled OpenAPI document: id, method, path, tag, summary. */
export function listOperations(contract) {
  const operations = [];
  for (const [path, item] of Object.entries(contract.paths))
    for (const method of methods) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const tag = operation.tags?.[0];
      if (!(tag in guideOfTag))
        throw new Error(`no guide explains the tag ${tag} (scripts/docs/guide-operation-links.mjs)`);
      operations.push({ operationId: operation.operationId, method, path, tag, summary: operation.summary ?? '' });
    }
  return operations;
}

/** A path template as a pattern for its uses in text: a parameter matches one segment, and the path must end there. */
const pathPattern = (path) =>
  new RegExp(
    `${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/\\s"\'`]+')}(?![A-Za-z0-9_/{-])`,
  );

/**
 * For each operation, the guides that explain it (the tag's guide first); for each guide, the operations it explains
 * or uses. `guides` are `{ name, title, text }`.
 */
export function linkGuidesAndOperations(operations, guides) {
  const byName = new Map(guides.map((g) => [g.name, g]));
  const guidesOf = new Map();
  const operationsOf = new Map(guides.map((g) => [g.name, []]));
  for (const operation of operations) {
    const primary = guideOfTag[operation.tag];
    if (!byName.has(primary)) throw new Error(`the guide ${primary} (for tag ${operation.tag}) does not exist`);
    const pattern = pathPattern(operation.path);
    const users = guides.filter((g) => g.name !== primary && pattern.test(g.text)).map((g) => g.name);
    const names = [primary, ...users];
    guidesOf.set(
      operation.operationId,
      names.map((n) => byName.get(n)),
    );
    for (const name of names) operationsOf.get(name).push(operation);
  }
  return { guidesOf, operationsOf };
}

/** The contract with each operation's description ending in links to its guides (for the reference page only). */
export function withGuideLinks(contract, guidesOf) {
  const copy = structuredClone(contract);
  for (const item of Object.values(copy.paths))
    for (const method of methods) {
      const operation = item[method];
      const guides = operation && guidesOf.get(operation.operationId);
      if (!guides) continue;
      const [primary, ...others] = guides;
      const also = others.length
        ? ` Also used in: ${others.map((g) => `[${g.title}](guides/${g.name}.html)`).join(', ')}.`
        : '';
      operation.description = `${operation.description ?? ''}\n\n**Guide:** [${primary.title}](guides/${primary.name}.html).${also}`;
    }
  return copy;
}

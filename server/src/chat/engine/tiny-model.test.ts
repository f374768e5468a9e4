// `scribe models make-tiny`: the file is a GGUF that node-llama-cpp's llama.cpp loads, with the real tokenizer (an
// English sentence becomes word pieces and reads back unchanged), the ChatML template and its control tokens, the
// same bytes for the same seed. (The bounded queue the llama engine puts in front of each model: bounded-queue.test.ts.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSchemaGrammar, llamaRuntime } from './llama-engine.ts';
import { buildTinyModel, CHATML_TEMPLATE } from './tiny-model.ts';

const test = suite('tiny GGUF and the per-model queue');
const dir = mkdtempSync(join(tmpdir(), 'scribe-make-tiny-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('scribe models make-tiny --out FILE writes a GGUF of a few MB that llama.cpp loads', async () => {
  const file = join(dir, 'tiny.gguf');
  const output = execFileSync(process.execPath, ['server/bin/scribe.mjs', 'models', 'make-tiny', '--out', file], {
    encoding: 'utf8',
  });
  assert.match(output, /wrote/);
  const bytes = readFileSync(file);
  assert.is(bytes.subarray(0, 4).toString('ascii'), 'GGUF');
  assert.is(bytes.readUInt32LE(4), 3);
  assert.ok(bytes.length > 1_000_000 && bytes.length < 8_000_000, String(bytes.length));
  assert.ok(bytes.equals(buildTinyModel()), 'the default seed writes the same bytes every time');
  assert.not.ok(bytes.equals(buildTinyModel({ seed: 2 })), 'another seed, other weights');

  const model = await (await llamaRuntime()).loadModel({ modelPath: file });
  try {
    assert.is(model.fileInfo.metadata.tokenizer.chat_template, CHATML_TEMPLATE);
    assert.is(model.trainContextSize, 1024);
    const sentence = 'The team agreed to ship the release on Friday.';
    const tokens = model.tokenize(sentence);
    // Word pieces, not bytes or characters (llama.cpp merges the unigram pieces pairwise by score, so a word whose
    // intermediate pieces are missing splits into smaller ones: 18 pieces for these 47 characters).
    assert.ok(tokens.length >= 10 && tokens.length < sentence.length / 2, `${tokens.length} tokens`);
    assert.is(model.tokenize('the').length, 1, 'a common word is one piece (▁the)');
    assert.is(model.detokenize(tokens), sentence);
    // Characters outside the vocabulary fall back to byte pieces and still read back.
    assert.is(model.detokenize(model.tokenize('naïve 東京 {"a": 1}')), 'naïve 東京 {"a": 1}');
    const special = model.tokenize('<|im_start|>user\nHi<|im_end|>', true);
    assert.is(special[0], model.tokenize('<|im_start|>', true)[0]);
    assert.ok(model.isSpecialToken(special[0]!));
    assert.is(model.tokens.eos, special.at(-1));
  } finally {
    await model.dispose();
  }
});

test('a JSON schema grammar writes integers as plain digits (node-llama-cpp admits 5e-3 there), numbers unchanged', async () => {
  const llama = await llamaRuntime();
  const schema = { type: 'object', properties: { legs: { type: 'integer' }, weight: { type: 'number' } } };
  const rule = (grammar: string, name: string) => grammar.split('\n').find((line) => line.startsWith(`${name} ::=`));
  const made = await llama.createGrammarForJsonSchema(schema as never);
  assert.match(rule(made.grammar, 'integer-number-rule')!, /\[eE\]/, 'the release still writes the exponent');
  const grammar = await jsonSchemaGrammar(llama, schema);
  assert.is(rule(grammar.grammar, 'integer-number-rule'), 'integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15})');
  assert.is(rule(grammar.grammar, 'fractional-number-rule'), rule(made.grammar, 'fractional-number-rule'));
  assert.equal(grammar.stopGenerationTriggers, made.stopGenerationTriggers);
  assert.is(grammar.trimWhitespaceSuffix, true);
});

test.run();

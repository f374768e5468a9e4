// `scribe models pull whisper-<name>` against a local mirror serving a synthetic model (with a test-only catalog entry
// holding its SHA-1): a download lands in the data dir's models/ with the setting to use printed; an interrupted one
// resumes with a range request and ends with the same bytes; a corrupt one is refused and removed.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { PullError, pullWhisperModel } from './model-pull.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-pull-'));
const source = join(dir, 'source.bin');
writeSyntheticWhisperModel(source);
const model = readFileSync(source);
const catalog = {
  synthetic: { sha1: createHash('sha1').update(model).digest('hex'), size: '4 MiB', use: 'tests' },
};

/** What the mirror does with the next request: serve the file, cut it halfway, or serve it with one byte changed. */
let mode: 'whole' | 'cut' | 'corrupt' = 'whole';
const ranges: (string | undefined)[] = [];
let server: Server;
let mirror: string;

function output() {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { out, text: () => text };
}

const test = suite('whisper model pull');

test.before(async () => {
  server = createServer((request, response) => {
    if (request.url !== '/ggml-synthetic.bin') return void response.writeHead(404).end();
    ranges.push(request.headers.range);
    const from = Number(/^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1] ?? 0);
    const body = mode === 'corrupt' ? Buffer.from(model) : model;
    if (mode === 'corrupt') body.writeUInt8(body.readUInt8(body.length - 10) ^ 0xff, body.length - 10);
    const headers = { 'content-length': String(body.length - from), 'content-type': 'application/octet-stream' };
    if (from > 0) {
      response.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` });
    } else {
      response.writeHead(200, headers);
    }
    if (mode === 'cut') {
      // Half the file, then the connection drops.
      response.write(body.subarray(from, from + Math.floor((body.length - from) / 2)), () => response.destroy());
      return;
    }
    response.end(body.subarray(from));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a download lands in models/ of the data dir, checked, and prints the setting to use', async () => {
  const dataDir = join(dir, 'whole');
  mode = 'whole';
  const { out, text } = output();
  const path = await pullWhisperModel({ name: 'synthetic', dataDir, mirror, catalog, out });
  assert.is(path, join(dataDir, 'models', 'ggml-synthetic.bin'));
  assert.ok(readFileSync(path).equals(model));
  assert.ok(text().includes(`SCRIBE_WHISPER_MODEL=${path}`), text());
  assert.match(text(), /100% /, 'progress reached the end');
  const again = output();
  await pullWhisperModel({ name: 'synthetic', dataDir, mirror, catalog, out: again.out });
  assert.match(again.text(), /already in .*checksum verified/);
});

test('an interrupted download resumes from where it stopped', async () => {
  const dataDir = join(dir, 'resumed');
  mode = 'cut';
  ranges.length = 0;
  const first = await pullWhisperModel({ name: 'synthetic', dataDir, mirror, catalog, out: output().out }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.instance(first, PullError);
  assert.match((first as Error).message, /stopped at .*run the command again to resume/);
  const part = join(dataDir, 'models', 'ggml-synthetic.bin.part');
  const kept = statSync(part).size;
  assert.ok(kept > 0 && kept < model.length, `${kept} bytes kept`);

  mode = 'whole';
  const { out, text } = output();
  const path = await pullWhisperModel({ name: 'synthetic', dataDir, mirror, catalog, out });
  assert.equal(ranges, [undefined, `bytes=${kept}-`]);
  assert.match(text(), /^resuming/);
  assert.ok(readFileSync(path).equals(model), 'the same bytes as the source');
  assert.not.ok(existsSync(part));
});

test('a corrupt download is refused by its checksum and removed', async () => {
  const dataDir = join(dir, 'corrupt');
  mode = 'corrupt';
  const error = await pullWhisperModel({ name: 'synthetic', dataDir, mirror, catalog, out: output().out }).then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  assert.instance(error, PullError);
  assert.match((error as Error).message, new RegExp(`not the published ${catalog.synthetic.sha1}; it was removed`));
  assert.not.ok(existsSync(join(dataDir, 'models', 'ggml-synthetic.bin.part')));
  assert.not.ok(existsSync(join(dataDir, 'models', 'ggml-synthetic.bin')));
});

test('an unknown name lists the known ones', async () => {
  const error = await pullWhisperModel({ name: 'huge', dataDir: dir, out: output().out }).catch((e: unknown) => e);
  assert.instance(error, PullError);
  assert.match(
    (error as Error).message,
    /unknown model "whisper-huge"; one of: whisper-tiny, .*whisper-large-v3-turbo/,
  );
});

test.run();

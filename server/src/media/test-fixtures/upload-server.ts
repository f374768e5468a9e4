// Test fixture for multipart.test.ts: a bare HTTP server in its own process, so the test measures the memory of the
// process that reads the upload and of nothing else. From the first byte of a request until its body has been read
// to the end it samples its memory and answers with the baseline and the peaks of two measures:
//   - rss: the process's resident memory, sampled every 2 ms without disturbing anything (includes garbage that the
//     collector has not reclaimed yet, and can hide growth in memory the allocator kept from earlier work);
//   - retained: V8 heap plus Buffer memory right after a forced collection (?gc=1, every 10 ms): what the request
//     really holds on to.
// POST /upload goes through readMultipartUpload (25 MB limit); POST /buffer holds the whole body in memory, the
// control that shows both measures catch an implementation that buffers. Needs --expose-gc. Prints {"port": N} on
// its first line of stdout.
import { createServer, type IncomingMessage } from 'node:http';
import { readdirSync } from 'node:fs';
import { ApiError } from '../../http/api-error.ts';
import { readMultipartUpload, removeUpload } from '../multipart.ts';

const dir = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc;
if (!dir || !gc) throw new Error('usage: node --expose-gc --import tsx upload-server.ts <upload dir>');
const collect = gc;

function bodyEnded(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', () => resolve());
    req.once('close', () => resolve());
  });
}

interface Memory {
  rss: number;
  retained: number;
}

function measure(): Memory {
  const usage = process.memoryUsage();
  return { rss: usage.rss, retained: usage.heapUsed + usage.arrayBuffers };
}

const server = createServer((req, res) => {
  const forceGc = req.url?.includes('gc=1') ?? false;
  collect();
  const baseline = measure();
  const peak = { ...baseline };
  const sample = () => {
    if (forceGc) collect();
    const now = measure();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.retained = Math.max(peak.retained, now.retained);
  };
  const sampler = setInterval(sample, forceGc ? 10 : 2);

  const work = async (): Promise<Record<string, unknown>> => {
    if (req.url?.startsWith('/buffer')) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      sample(); // while the chunks are still held
      return { status: 200, bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0) };
    }
    try {
      const upload = await readMultipartUpload(req, { dir, maxFileBytes: 26_214_400 });
      await removeUpload(upload);
      return { status: 200, size: upload.file?.size };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, code: error.code, param: error.param, message: error.message };
    }
  };

  work()
    .then(async (result) => {
      await bodyEnded(req);
      sample();
      clearInterval(sampler);
      const body = JSON.stringify({ ...result, baseline, peak, filesLeft: readdirSync(dir) });
      res.writeHead(result.status as number, { 'content-type': 'application/json' }).end(body);
    })
    .catch((error: unknown) => {
      clearInterval(sampler);
      res.writeHead(500).end(String(error));
    });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(JSON.stringify({ port: address.port }));
});

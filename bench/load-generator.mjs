// The HTTP benchmarks' load generator, run as its own process so it does not share the server's event loop:
// autocannon's API with every response's own latency kept. autocannon's percentiles come from a histogram of whole
// milliseconds, too coarse for a p99 near 10 ms (9 against 11 ms is 1.22, but 9.4 against 10.6 is 1.13 and 8.6 against
// 11.4 is 1.33), so p50 and p99 are taken here from the latencies of the 2xx responses (in ms, as measured by
// autocannon with process.hrtime). Prints one JSON line: { rps, p50, p99, requests, non2xx, errors }.
// Usage: node bench/load-generator.mjs URL CONNECTIONS SECONDS [HEADER=VALUE ...]
import autocannon from 'autocannon';

const [url, connections, seconds, ...headerArgs] = process.argv.slice(2);
const headers = Object.fromEntries(
  headerArgs.map((arg) => [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]),
);
const latencies = [];
const instance = autocannon({ url, connections: Number(connections), duration: Number(seconds), headers });
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
});
const result = await instance;
latencies.sort((a, b) => a - b);
const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
const round = (ms) => Math.round(ms * 100) / 100;
console.log(
  JSON.stringify({
    rps: result.requests.average,
    p50: round(percentile(50)),
    p99: round(percentile(99)),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  }),
);

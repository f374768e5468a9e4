// The address guard on every kind of address it must refuse (IPv4 and IPv6 special ranges, IPv4-mapped and NAT64
// forms of them, the odd spellings the URL parser turns into loopback) and the public ones it must pass, plus the
// allow list (exact host, exact IP, CIDR ranges in both families) and the schemes it refuses.
import ipaddr from 'ipaddr.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allowListFromEnv, createAddressGuard, nonPublicRange, UrlRefusedError } from './address-guard.ts';

const test = suite('address guard');
const strict = createAddressGuard([]);
const REFUSED = 'is not allowed: the server does not fetch from private, local or reserved networks.';

async function refusal(guard: ReturnType<typeof createAddressGuard>, url: string): Promise<UrlRefusedError> {
  try {
    const passed = await guard.check(new URL(url));
    assert.unreachable(`${url} was allowed (${passed.address})`);
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error;
    return error;
  }
  throw new Error('unreachable');
}

const refusedHosts: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['203.0.113.5', 'reserved'],
  ['[::1]', 'loopback'],
  ['[::]', 'unspecified'],
  ['[fe80::1]', 'link-local'],
  ['[febf:ffff::1]', 'link-local'],
  ['[fc00::1]', 'unique-local'],
  ['[fd00:ec2::254]', 'unique-local'],
  ['[ff02::1]', 'multicast'],
  ['[::ffff:127.0.0.1]', 'loopback'],
  ['[::ffff:169.254.169.254]', 'link-local'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['[::ffff:192.168.0.1]', 'private'],
  ['[::ffff:0:10.0.0.1]', 'private'],
  ['[64:ff9b::a00:1]', 'private'],
  ['[64:ff9b::a9fe:a9fe]', 'link-local'],
  ['[2001:db8::1]', 'reserved'],
  ['[::7f00:1]', 'reserved'],
  ['[2002:a00:1::1]', '6to4'],
  ['[2001::1]', 'teredo'],
  ['[100::1]', 'discard'],
  ['[fec0::1]', 'deprecatedSiteLocal'],
  // Spellings of 127.0.0.1 and 10.0.0.1 that the WHATWG URL parser normalizes before the guard sees them.
  ['2130706433', 'loopback'],
  ['0x7f.0.0.1', 'loopback'],
  ['127.1', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['10.1', 'private'],
];

for (const [host, label] of refusedHosts) {
  test(`refuses http://${host}/ (${label})`, async () => {
    const error = await refusal(strict, `http://${host}/file.mp3`);
    assert.is(error.reason, 'address');
    assert.match(error.detail ?? '', label);
    // The message names only the host as the client wrote it (normalized by the URL parser), not its range.
    const hostname = new URL(`http://${host}/`).hostname;
    assert.is(error.message, `The host ${hostname.replace(/^\[|\]$/g, '')} ${REFUSED}`);
    assert.is(error.url, new URL(`http://${host}/file.mp3`).href);
  });
}

const publicHosts: [string, 4 | 6][] = [
  ['8.8.8.8', 4],
  ['1.1.1.1', 4],
  ['93.184.215.14', 4],
  ['172.32.0.1', 4],
  ['172.15.255.255', 4],
  ['100.128.0.1', 4],
  ['100.63.255.255', 4],
  ['169.253.255.255', 4],
  ['11.0.0.1', 4],
  ['[2606:4700:4700::1111]', 6],
  ['[2a00:1450:4001:80b::200e]', 6],
  ['[::ffff:8.8.8.8]', 6],
  ['[64:ff9b::808:808]', 6],
];

for (const [host, family] of publicHosts) {
  test(`passes public http://${host}/`, async () => {
    const checked = await strict.check(new URL(`https://${host}/a.wav`));
    assert.is(checked.family, family);
    assert.is(ipaddr.parse(checked.address).toString(), ipaddr.parse(host.replace(/[[\]]/g, '')).toString());
  });
}

test('nonPublicRange judges addresses directly', () => {
  assert.is(nonPublicRange(ipaddr.parse('8.8.4.4')), null);
  assert.is(nonPublicRange(ipaddr.parse('169.254.169.254')), 'linkLocal');
  assert.is(nonPublicRange(ipaddr.parse('::ffff:100.64.1.1')), 'carrierGradeNat');
  assert.is(nonPublicRange(ipaddr.parse('3fff::1')), 'reserved');
  assert.is(nonPublicRange(ipaddr.parse('2001:4860:4860::8888')), null);
});

test('only http and https are fetched', async () => {
  for (const url of ['ftp://example.com/a.mp3', 'file:///etc/passwd', 'gopher://example.com/', 'data:audio/wav,x']) {
    const error = await refusal(createAddressGuard(['example.com']), url);
    assert.is(error.reason, 'scheme', url);
    assert.match(error.message, 'Only http and https');
  }
});

test('localhost by name is refused unless the name is allowed', async () => {
  const error = await refusal(strict, 'http://localhost:8080/a.wav');
  assert.is(error.reason, 'address');
  assert.is(error.message, `The host localhost ${REFUSED}`);
  // What the name resolved to is for the server's log only.
  assert.match(error.detail ?? '', /^(127\.0\.0\.1|::1) \(loopback\)$/);
  for (const entry of ['localhost', 'LOCALHOST.']) {
    const checked = await createAddressGuard([entry]).check(new URL('http://localhost:8080/a.wav'));
    assert.ok(nonPublicRange(ipaddr.parse(checked.address)) === 'loopback');
  }
  // Allowing a name does not allow other names for the same address.
  assert.is((await refusal(createAddressGuard(['localhost']), 'http://127.0.0.1/')).reason, 'address');
});

test('an allowed IP allows exactly that address (and its IPv4-mapped form)', async () => {
  const guard = createAddressGuard(['127.0.0.1']);
  assert.equal(await guard.check(new URL('http://127.0.0.1:9000/x')), { address: '127.0.0.1', family: 4 });
  assert.is((await guard.check(new URL('http://[::ffff:127.0.0.1]/x'))).family, 6);
  await refusal(guard, 'http://127.0.0.2/x');
  await refusal(guard, 'http://10.0.0.1/x');
  await refusal(guard, 'http://[::1]/x');
  await refusal(guard, 'http://169.254.169.254/latest/meta-data/');

  const v6 = createAddressGuard(['::1']);
  assert.equal(await v6.check(new URL('http://[::1]/x')), { address: '::1', family: 6 });
  assert.is((await createAddressGuard(['[::1]']).check(new URL('http://[::1]/x'))).address, '::1');
  await refusal(v6, 'http://127.0.0.1/x');
});

test('CIDR entries allow every address inside them and nothing outside', async () => {
  const guard = createAddressGuard(['10.0.0.0/8', 'fd00::/8', '192.168.10.0/24', '::ffff:172.16.0.0/112']);
  for (const host of ['10.0.0.1', '10.200.3.4', '[fd12:3456::1]', '192.168.10.77', '172.16.5.5', '[::ffff:10.9.9.9]']) {
    await guard.check(new URL(`http://${host}/`));
  }
  for (const host of ['100.64.0.1', '192.168.11.1', '[fc00::1]', '127.0.0.1', '172.17.0.1', '169.254.169.254']) {
    await refusal(guard, `http://${host}/`);
  }
});

test('a malformed CIDR entry fails at creation; blank entries are ignored', () => {
  assert.throws(() => createAddressGuard(['10.0.0.0/33']), /Invalid CIDR/);
  assert.throws(() => createAddressGuard(['fd00::/200']), /Invalid CIDR/);
  createAddressGuard(['', '  ']);
});

test('allowListFromEnv splits SCRIBE_URL_ALLOW_HOSTS on commas and spaces', () => {
  assert.equal(allowListFromEnv({ SCRIBE_URL_ALLOW_HOSTS: ' media.internal, 10.0.0.0/8  ::1,' }), [
    'media.internal',
    '10.0.0.0/8',
    '::1',
  ]);
  assert.equal(allowListFromEnv({}), []);
});

test('a host that does not resolve is refused with reason dns', async () => {
  const error = await refusal(strict, 'http://no-such-host.invalid/a.wav');
  assert.is(error.reason, 'dns');
  assert.is(error.message, 'The host no-such-host.invalid could not be resolved.');
  assert.ok(error.detail, 'the DNS error code is kept for the log');
});

test('a refusal of a name never says what the name resolves to, nor its range', async () => {
  const error = await refusal(strict, 'http://localhost/a.wav');
  const [resolved] = (error.detail ?? '').split(' ');
  assert.ok(resolved && ipaddr.isValid(resolved), error.detail);
  assert.not.ok(error.message.includes(resolved), error.message);
  assert.not.ok(/127\.0\.0\.1|::1|loopback/.test(error.message), error.message);
});

test.run();

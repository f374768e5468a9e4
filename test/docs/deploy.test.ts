// The example service definitions of the deployment guide (docs/deploy/) are usable as shipped: the systemd units pass
// `systemd-analyze verify` (systemd's own checker: unit syntax, directives, the executable of every Exec line), every
// setting they and the compose file set is one the server reads, every role they name is a role the server knows, and
// the compose services run the same commands as the units.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { ConfigError, loadConfig, ROLES } from '../../server/src/config.ts';

const root = new URL('../../', import.meta.url).pathname;
const unitsDir = join(root, 'docs/deploy/systemd');
const composeFile = join(root, 'docs/deploy/compose.yaml');
const configSource = readFileSync(join(root, 'server/src/config.ts'), 'utf8');
const units = readdirSync(unitsDir).filter((name) => name.endsWith('.service'));
const test = suite('docs/deploy');

/** KEY=value lines of the units' Environment= directives and of the env file. */
function unitSettings(): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  const add = (key: string, value: string) => settings.set(key, [...(settings.get(key) ?? []), value]);
  for (const name of [...units, 'scribe.env']) {
    for (const line of readFileSync(join(unitsDir, name), 'utf8').split('\n')) {
      const assignment = /^(?:Environment=)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (assignment && !line.startsWith('#')) add(assignment[1]!, assignment[2]!);
    }
  }
  return settings;
}

test('the systemd units pass systemd-analyze verify', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scribe-units-'));
  try {
    for (const name of units) {
      // A template is verified as one of its instances; the interpreter is this machine's Node (a unit names the
      // usual Debian path, which is where `verify` would look for it).
      const target = join(dir, name.replace('@.service', '@1.service'));
      writeFileSync(target, readFileSync(join(unitsDir, name), 'utf8').replaceAll('/usr/bin/node', process.execPath));
      const verified = spawnSync('systemd-analyze', ['verify', target], { encoding: 'utf8' });
      assert.is(verified.error, undefined, 'systemd-analyze runs (Debian package systemd)');
      assert.is(verified.status, 0, `${name}: ${verified.stderr}`);
      assert.not.match(
        verified.stderr,
        new RegExp(name.replace('@.service', '@1'), 'u'),
        `${name}: ${verified.stderr}`,
      );
    }
    // The checker itself refuses a broken unit (so a pass above means something).
    const broken = join(dir, 'broken.service');
    copyFileSync(join(unitsDir, 'scribe-api.service'), broken);
    writeFileSync(broken, readFileSync(broken, 'utf8').replace('/usr/bin/node', '/usr/bin/no-such-node'));
    assert.is.not(spawnSync('systemd-analyze', ['verify', broken], { encoding: 'utf8' }).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every setting the units and the compose file set is read by the server; every role is known', () => {
  const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const names = new Set(unitSettings().keys());
  for (const service of Object.values(compose.services)) {
    for (const name of Object.keys(service.environment ?? {})) if (!name.startsWith('POSTGRES_')) names.add(name);
  }
  assert.ok(names.has('SCRIBE_ROLE') && names.has('DATABASE_URL'), [...names].join(', '));
  for (const name of names) {
    if (name === 'NODE_ENV') continue; // read by Node's ecosystem as well as by config.ts
    assert.match(configSource, new RegExp(`\\b${name}\\b`), `${name} is a setting of server/src/config.ts`);
  }
  const roles = [
    ...(unitSettings().get('SCRIBE_ROLE') ?? []),
    ...Object.values(compose.services).flatMap((s) => (s.environment?.SCRIBE_ROLE ? [s.environment.SCRIBE_ROLE] : [])),
  ];
  assert.equal([...new Set(roles)].sort(), ['api', 'worker']);
  for (const role of roles) assert.ok((ROLES as readonly string[]).includes(role), role);
});

test('the compose services run the commands of the units', () => {
  const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  };
  const execOf = (unit: string) =>
    /^ExecStart=\/usr\/bin\/(.*)$/m.exec(readFileSync(join(unitsDir, unit), 'utf8'))![1]!.split(' ');
  assert.equal(compose.services.api!.command, execOf('scribe-api.service'));
  assert.equal(compose.services.worker!.command, execOf('scribe-worker@.service'));
  assert.equal(compose.services.migrate!.command, execOf('scribe-migrate.service'));
  assert.is(compose.services.api!.environment!.SCRIBE_ROLE, 'api');
  assert.is(compose.services.worker!.environment!.SCRIBE_ROLE, 'worker');
});

test('the shipped secrets are placeholders the server refuses, and the examples say how to generate them', () => {
  const settings = unitSettings();
  for (const name of ['SCRIBE_SECRET_KEY', 'SCRIBE_ADMIN_TOKEN']) {
    const [value] = settings.get(name) ?? [];
    assert.ok(value, `scribe.env sets ${name}`);
    let refused: unknown;
    try {
      loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://x@127.0.0.1/x', [name]: value });
    } catch (error) {
      refused = error;
    }
    assert.instance(refused, ConfigError, `${name}=${value} is refused`);
    assert.is((refused as ConfigError).setting, name);
  }
  const env = readFileSync(join(unitsDir, 'scribe.env'), 'utf8');
  assert.match(env, /openssl rand -hex 32/);
  assert.match(env, /openssl rand -hex 24/);
  assert.match(readFileSync(composeFile, 'utf8'), /openssl rand -hex 32/);
});

test.run();

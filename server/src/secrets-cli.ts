// `scribe secrets reseal`: after a rotation of SCRIBE_SECRET_KEY (the old key in SCRIBE_SECRET_KEY_PREVIOUS),
// re-seals every stored secret with the new key and records it as the database's, so the old key can be dropped.
// `scribe secrets unseal-for-downgrade`: writes webhook signing secrets and stored idempotent answers back in clear for
// an earlier version, which reads them in clear. Both run on the database the server's environment configures.
import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { checkDatabaseAnswers } from './database-preflight.ts';
import { resealAll, unsealForDowngrade, type ColumnCount } from './secrets/reseal.ts';
import { resolveSecretKeys } from './secrets/secret-key.ts';

export const secretsUsage = `scribe secrets reseal
  scribe secrets unseal-for-downgrade`;

const describe = (counts: ColumnCount[], done: string, kept: string) =>
  counts.map((c) => `  ${c.table}: ${c.rewritten} ${done}, ${c.unchanged} ${kept}`).join('\n');

/** Runs `scribe secrets <verb>`; returns the exit code, or undefined for a verb it does not know. */
export async function secretsCommand(verb: string | undefined): Promise<number | undefined> {
  if (verb !== 'reseal' && verb !== 'unseal-for-downgrade') return undefined;
  const config = loadConfig();
  await checkDatabaseAnswers(config.databaseUrl);
  const db = openDatabase(config);
  try {
    const keys = await resolveSecretKeys(db, config);
    if (verb === 'reseal') {
      const counts = await resealAll(db, keys);
      console.log(`scribe: re-sealed with SCRIBE_SECRET_KEY\n${describe(counts, 're-sealed', 'already current')}`);
      if (keys.previous.length > 0) {
        console.log(
          'scribe: SCRIBE_SECRET_KEY_PREVIOUS can be removed once the result links signed with it have expired ' +
            '(SCRIBE_RESULT_LINK_TTL_S) and every node runs with the new key.',
        );
      }
    } else {
      const counts = await unsealForDowngrade(db, keys);
      console.log(
        `scribe: written in clear for an earlier version\n${describe(counts, 'unsealed', 'already in clear')}\n` +
          'scribe: start the earlier version now; this version seals webhook secrets again when it starts.',
      );
    }
    return 0;
  } finally {
    await db.destroy();
  }
}

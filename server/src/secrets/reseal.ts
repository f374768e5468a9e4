// Everything sealed with the server key, re-sealed with the current key after a rotation (`scribe secrets reseal`),
// and unsealed for a downgrade (`scribe secrets unseal-for-downgrade`). The sealed values: v2 key pair secrets
// (key_pairs.secret_encrypted, sealed by every version), webhook signing secrets and stored idempotent answers
// (`sealed:`-prefixed; earlier versions wrote both in clear). Result links are signed, not sealed: those signed
// with a previous key verify while SCRIBE_SECRET_KEY_PREVIOUS lists it, and stop when it is dropped.
import type { Database } from '../db/database.ts';
import { openFinding, seal, type SecretKeys } from './secret-box.ts';
import { recordCurrentKey } from './secret-key.ts';

/** Marks a webhook secret or a stored answer as sealed; the v2 secrets column holds sealed values only. */
const SEALED = 'sealed:';

interface SealedColumn {
  table: string;
  column: string;
  /** The primary key columns, to update one row. */
  keys: string[];
  /** Whether values carry the `sealed:` mark (values without it are in clear). */
  marked: boolean;
}

const SEALED_COLUMNS: SealedColumn[] = [
  { table: 'key_pairs', column: 'secret_encrypted', keys: ['id'], marked: false },
  { table: 'webhooks', column: 'secret', keys: ['id'], marked: true },
  { table: 'idempotency_keys', column: 'response_body', keys: ['account_id', 'key'], marked: true },
  { table: 'admin_idempotency_keys', column: 'response_body', keys: ['key'], marked: true },
];

export interface ColumnCount {
  table: string;
  /** Values rewritten (re-sealed with the current key, or written in clear for a downgrade). */
  rewritten: number;
  /** Values already as wanted (sealed with the current key; in clear, or a column that stays sealed). */
  unchanged: number;
}

export class UnopenableSecretsError extends Error {
  override name = 'UnopenableSecretsError';
}

type Row = Record<string, string>;

function sealedPart(spec: SealedColumn, value: string): string | undefined {
  if (!spec.marked) return value;
  return value.startsWith(SEALED) ? value.slice(SEALED.length) : undefined;
}

/**
 * Re-seals every value that a previous key opens with the current key, in one transaction, then records the current
 * key as the database's (PostgreSQL). A value no key opens stops it before anything is written: dropping it would
 * lose a customer's secret, so the keys that are missing have to be found first.
 */
export async function resealAll(db: Database, keys: SecretKeys): Promise<ColumnCount[]> {
  const counts = await db.transaction(async (trx) => {
    const result: ColumnCount[] = [];
    for (const spec of SEALED_COLUMNS) {
      const rows = await trx<Row>(spec.table).select(...spec.keys, spec.column);
      const count: ColumnCount = { table: spec.table, rewritten: 0, unchanged: 0 };
      const unopenable: string[] = [];
      for (const row of rows) {
        const sealed = sealedPart(spec, row[spec.column]!);
        if (sealed === undefined) {
          count.unchanged++; // in clear: the server seals those itself when it starts (webhook secrets)
          continue;
        }
        let opened: { plaintext: string; byCurrent: boolean };
        try {
          opened = openFinding(keys, sealed);
        } catch {
          unopenable.push(spec.keys.map((k) => row[k]).join('/'));
          continue;
        }
        if (opened.byCurrent) {
          count.unchanged++;
          continue;
        }
        const resealed = seal(keys.current, opened.plaintext);
        await trx(spec.table)
          .where(Object.fromEntries(spec.keys.map((k) => [k, row[k]])))
          .update({ [spec.column]: spec.marked ? `${SEALED}${resealed}` : resealed });
        count.rewritten++;
      }
      if (unopenable.length > 0) {
        throw new UnopenableSecretsError(
          `${unopenable.length} value(s) of ${spec.table}.${spec.column} open with neither SCRIBE_SECRET_KEY nor ` +
            `SCRIBE_SECRET_KEY_PREVIOUS (${unopenable.slice(0, 3).join(', ')}${unopenable.length > 3 ? ', …' : ''}): ` +
            'add the key they were sealed with to SCRIBE_SECRET_KEY_PREVIOUS; nothing was changed',
        );
      }
      result.push(count);
    }
    return result;
  });
  await recordCurrentKey(db, keys);
  return counts;
}

/**
 * Writes webhook signing secrets and stored answers back in clear, for a downgrade to a version that reads them in
 * clear (an earlier version): it would sign deliveries with the sealed text and fail to replay stored answers.
 * v2 key pair secrets stay sealed (every version seals them). Run it with the new version stopped, then start the
 * old one: a new-version node would seal the webhook secrets again when it starts.
 */
export async function unsealForDowngrade(db: Database, keys: SecretKeys): Promise<ColumnCount[]> {
  return db.transaction(async (trx) => {
    const result: ColumnCount[] = [];
    for (const spec of SEALED_COLUMNS.filter((column) => column.marked)) {
      const rows = await trx<Row>(spec.table).select(...spec.keys, spec.column);
      const count: ColumnCount = { table: spec.table, rewritten: 0, unchanged: 0 };
      for (const row of rows) {
        const sealed = sealedPart(spec, row[spec.column]!);
        if (sealed === undefined) {
          count.unchanged++;
          continue;
        }
        let plaintext: string;
        try {
          plaintext = openFinding(keys, sealed).plaintext;
        } catch {
          throw new UnopenableSecretsError(
            `a value of ${spec.table}.${spec.column} opens with neither SCRIBE_SECRET_KEY nor ` +
              'SCRIBE_SECRET_KEY_PREVIOUS: add the key it was sealed with; nothing was changed',
          );
        }
        await trx(spec.table)
          .where(Object.fromEntries(spec.keys.map((k) => [k, row[k]])))
          .update({ [spec.column]: plaintext });
        count.rewritten++;
      }
      result.push(count);
    }
    return result;
  });
}

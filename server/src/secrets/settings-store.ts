// server_settings rows: written once (the first writer wins, later writers change nothing) and read by every node.
import type { Database } from '../db/database.ts';

export async function readSetting(db: Database, name: string): Promise<string | undefined> {
  const row = await db('server_settings').where({ name }).first<{ value: string } | undefined>('value');
  return row?.value;
}

/** Inserts the setting unless it exists; a node that loses the race keeps the winner's value (read it back). */
export async function recordSetting(db: Database, name: string, value: string): Promise<void> {
  await db('server_settings').insert({ name, value }).onConflict('name').ignore();
}

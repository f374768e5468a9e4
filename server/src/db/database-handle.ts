// The database handle's type and which engine it talks to, apart from database.ts (which opens it) so that the
// modules database.ts wires in (the hot reads) can name the handle without importing the module that imports them.
import type { Knex } from 'knex';

export type Database = Knex;
export type DatabaseKind = 'sqlite' | 'postgres';

export function databaseKind(db: Database): DatabaseKind {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

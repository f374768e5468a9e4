// The migrations, listed explicitly so they load the same way under tsx, compiled JS and tests.
import type { Knex } from 'knex';
import * as core from '../../migrations/20261121210000_core.ts';

const migrations: Record<string, Knex.Migration> = {
  '20261121210000_core': core,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

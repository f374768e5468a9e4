// The migrations, listed explicitly so they load the same way under tsx, compiled JS and tests.
import type { Knex } from 'knex';
import * as core from '../../migrations/20261121210000_core.ts';
import * as rateLimits from '../../migrations/20261121220000_rate_limits.ts';
import * as transcriptionJobs from '../../migrations/20261122000000_transcription_jobs.ts';
import * as webhookDeliveries from '../../migrations/20261122010000_webhook_deliveries.ts';
import * as v2Analysis from '../../migrations/20261122020000_v2_analysis.ts';
import * as streamSessions from '../../migrations/20261122030000_stream_sessions.ts';
import * as transcriptChats from '../../migrations/20261123010000_transcript_chats.ts';
import * as mediaChunks from '../../migrations/20261125000000_media_chunks.ts';
import * as serverSettings from '../../migrations/20261125010000_server_settings.ts';
import * as signatureNonces from '../../migrations/20261128150000_signature_nonces.ts';
import * as adminIdempotencyKeys from '../../migrations/20261207010000_admin_idempotency_keys.ts';

const migrations: Record<string, Knex.Migration> = {
  '20261121210000_core': core,
  '20261121220000_rate_limits': rateLimits,
  '20261122000000_transcription_jobs': transcriptionJobs,
  '20261122010000_webhook_deliveries': webhookDeliveries,
  '20261122020000_v2_analysis': v2Analysis,
  '20261122030000_stream_sessions': streamSessions,
  '20261123010000_transcript_chats': transcriptChats,
  '20261125000000_media_chunks': mediaChunks,
  '20261125010000_server_settings': serverSettings,
  '20261128150000_signature_nonces': signatureNonces,
  '20261207010000_admin_idempotency_keys': adminIdempotencyKeys,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

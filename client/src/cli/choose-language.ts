// The language a CLI command sends when --language is not given. The API's default is `ru`, which a server's engine
// may not have (the reference server's built-in one recognises English only): the command asks the server which
// languages its transcription model accepts and says on stderr which one it chose, so a bare
// `scribe-client transcribe FILE` works against any server and the reader sees why.
import type { Client } from '../../../generated/client/client/index.ts';
import { listModels } from '../../../generated/client/sdk.gen.ts';
import { ScribeApiError } from '../api-error.ts';

/** The API's default language, sent when the server does not say what its engine accepts. */
export const API_DEFAULT_LANGUAGE = 'ru';

export interface LanguageChoice {
  language: string;
  /** Why this language, for the line on stderr; undefined when the user named it. */
  reason?: string;
}

/**
 * `given` when the user named a language; otherwise the API's default when the server's transcription model accepts
 * it (or accepts any code), else the first language the model lists; the API's default when the server lists no
 * transcription model (its answer to the request then says what it accepts). A refused model list is thrown.
 */
export async function chooseLanguage(client: Client, given: string | undefined): Promise<LanguageChoice> {
  if (given) return { language: given };
  // A refused model list (a wrong key, a blocked account) is the command's answer: the same request would be refused.
  const { data, error, response } = await listModels({ client });
  if (!data) throw ScribeApiError.from(response, error);
  const model = data?.data.find((entry) => entry.type === 'transcription' && entry.status !== 'unavailable');
  const languages = model?.languages;
  if (!model)
    return { language: API_DEFAULT_LANGUAGE, reason: "the API's default; the server lists no transcription model" };
  if (!languages?.length || languages.includes(API_DEFAULT_LANGUAGE))
    return { language: API_DEFAULT_LANGUAGE, reason: `the API's default, which ${model.id} accepts` };
  return { language: languages[0]!, reason: `${model.id} accepts ${languages.join(', ')}` };
}

/** The stderr line that says which language a command chose and how to choose another. */
export const choiceLine = (choice: LanguageChoice): string =>
  choice.reason ? `language: ${choice.language} (${choice.reason}; --language to choose another)\n` : '';

// The playground page: wires the key box, file and recording transcription, live streaming and chat to the page's
// elements. Each section reports its own failures in its own error box.
import type { ChatModelId, Transcription } from '../../client/src/index.ts';
import { serverModels, streamChat } from './chat.ts';
import { byId } from './dom.ts';
import { pageClient, savedKey, saveKey } from './key-store.ts';
import { startLive, type LiveSession } from './live-stream.ts';
import { startRecording, type Recording } from './recorder.ts';
import { clearError, showError } from './show-error.ts';
import { subtitleFile, transcribeFile } from './transcribe-file.ts';

const client = pageClient();

// --- API key ------------------------------------------------------------------------------------------------------
const keyInput = byId<HTMLInputElement>('api-key');
const keyStatus = byId('key-status');
const keyError = byId('key-error');
const language = byId<HTMLSelectElement>('language');

/**
 * The languages the transcription engine declares. Chosen: the visitor's pick if still offered, else the API's default
 * `ru` when the engine has it, else its first language (what the scribe-client CLI sends without --language).
 */
function showLanguages(languages: string[]): void {
  const chosen = language.value;
  language.replaceChildren(
    ...languages.map((code) => Object.assign(document.createElement('option'), { value: code, textContent: code })),
  );
  language.disabled = languages.length === 0;
  if (languages.includes(chosen)) language.value = chosen;
  else if (languages.includes('ru')) language.value = 'ru';
}

async function checkKey(): Promise<void> {
  clearError(keyError);
  if (!savedKey()) {
    keyStatus.textContent = 'Paste an API key to start.';
    return;
  }
  keyStatus.textContent = 'Checking the key…';
  try {
    const models = await serverModels(client);
    keyStatus.textContent = 'Key accepted.';
    keyStatus.className = 'ok';
    showLanguages(models.find((model) => model.type === 'transcription')?.languages ?? []);
    showChat(
      models
        .filter((model) => model.type === 'chat' && model.status === 'available')
        .map((model) => model.id as ChatModelId),
    );
  } catch (error) {
    keyStatus.textContent = '';
    keyStatus.className = 'muted';
    showError(keyError, error);
  }
}

byId<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  saveKey(keyInput.value.trim());
  void checkKey();
});
byId('key-forget').addEventListener('click', () => {
  keyInput.value = '';
  saveKey('');
  void checkKey();
});

// --- File and recording -------------------------------------------------------------------------------------------
const fileInput = byId<HTMLInputElement>('file-input');
const fileError = byId('file-error');
const taskMode = byId('task-mode');
const taskStatus = byId('task-status');
const taskProgress = byId<HTMLProgressElement>('task-progress');
const taskResult = byId('task-result');
const downloadSrt = byId<HTMLAnchorElement>('download-srt');
const downloadVtt = byId<HTMLAnchorElement>('download-vtt');

function showTask(task: Transcription): void {
  taskStatus.textContent = `${task.status} · ${Math.round(task.progress)} %`;
  taskProgress.hidden = false;
  taskProgress.value = task.progress;
}

async function showResult(task: Transcription): Promise<void> {
  if (task.status !== 'completed' || !task.result) {
    const reason = task.error ? `${task.error.code}: ${task.error.message}` : `The task ended ${task.status}.`;
    throw new Error(reason);
  }
  byId('transcript').textContent = task.result.text || '(no speech recognised)';
  const rows = (task.result.words ?? []).map((word) => {
    const row = document.createElement('tr');
    for (const cell of [word.word, word.start.toFixed(2), word.end.toFixed(2)]) {
      const td = document.createElement('td');
      td.textContent = cell;
      row.append(td);
    }
    return row;
  });
  byId('words')
    .querySelector('tbody')!
    .replaceChildren(...rows);
  for (const [link, format] of [
    [downloadSrt, 'srt'],
    [downloadVtt, 'vtt'],
  ] as const) {
    if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(await subtitleFile(client, task.id, format));
    link.download = `${task.filename.replace(/\.[^.]*$/, '') || 'transcript'}.${format}`;
  }
  taskResult.hidden = false;
}

async function transcribe(file: File, knownSeconds?: number): Promise<void> {
  clearError(fileError);
  taskResult.hidden = true;
  taskStatus.textContent = 'Uploading…';
  taskProgress.hidden = true;
  try {
    const task = await transcribeFile(
      client,
      file,
      { onTask: showTask, onMode: (mode) => (taskMode.textContent = `${mode} task:`) },
      { language: language.value || undefined, knownSeconds },
    );
    await showResult(task);
  } catch (error) {
    taskStatus.textContent = '';
    showError(fileError, error);
  }
}

byId('file-transcribe').addEventListener('click', () => {
  const file = fileInput.files?.[0];
  if (!file) return showError(fileError, new Error('Choose a file first.'));
  void transcribe(file);
});

let recording: Recording | undefined;
const recordStart = byId<HTMLButtonElement>('record-start');
const recordStop = byId<HTMLButtonElement>('record-stop');
recordStart.addEventListener('click', async () => {
  clearError(fileError);
  try {
    recording = await startRecording();
    recordStart.disabled = true;
    recordStop.disabled = false;
    taskStatus.textContent = 'Recording…';
  } catch (error) {
    showError(fileError, error);
  }
});
recordStop.addEventListener('click', async () => {
  if (!recording) return;
  recordStop.disabled = true;
  const { file, seconds } = await recording.stop();
  recording = undefined;
  recordStart.disabled = false;
  await transcribe(file, seconds);
});

// --- Live stream --------------------------------------------------------------------------------------------------
const liveStart = byId<HTMLButtonElement>('live-start');
const liveStop = byId<HTMLButtonElement>('live-stop');
const liveStatus = byId('live-status');
const liveError = byId('live-error');
const livePartial = byId('live-partial');
const liveFinals = byId('live-finals');
let live: LiveSession | undefined;

function liveEnded(): void {
  live = undefined;
  liveStart.disabled = false;
  liveStop.disabled = true;
}

liveStart.addEventListener('click', async () => {
  clearError(liveError);
  liveStart.disabled = true;
  liveFinals.replaceChildren();
  livePartial.textContent = '';
  liveStatus.textContent = 'Connecting…';
  try {
    const session = await startLive(client, language.value || undefined, {
      onStarted: () => (liveStatus.textContent = 'Listening — speak now.'),
      onPartial: (text) => (livePartial.textContent = text),
      onFinal: (text, start, end) => {
        const item = document.createElement('li');
        item.textContent = `${text} (${start.toFixed(2)}–${end.toFixed(2)} s)`;
        item.dataset.text = text;
        liveFinals.append(item);
      },
    });
    live = session;
    liveStop.disabled = false;
    session.finished.catch((error: unknown) => {
      if (live !== session) return;
      liveStatus.textContent = 'The stream stopped.';
      showError(liveError, error);
      liveEnded();
    });
  } catch (error) {
    liveStatus.textContent = '';
    showError(liveError, error);
    liveEnded();
  }
});

liveStop.addEventListener('click', async () => {
  const session = live;
  if (!session) return;
  liveStop.disabled = true;
  liveStatus.textContent = 'Finishing…';
  try {
    const completed = await session.stop();
    liveStatus.textContent = `Session completed: ${completed.duration.toFixed(1)} s, ${completed.minutes_billed} min billed, cost ${completed.cost}.`;
  } catch (error) {
    liveStatus.textContent = 'The stream stopped.';
    showError(liveError, error);
  }
  liveEnded();
});

// --- Chat ---------------------------------------------------------------------------------------------------------
const chatForm = byId<HTMLFormElement>('chat-form');
const chatModel = byId<HTMLSelectElement>('chat-model');
const chatUnavailable = byId('chat-unavailable');
const chatError = byId('chat-error');
const chatAnswer = byId('chat-answer');

function showChat(available: ChatModelId[]): void {
  chatForm.hidden = available.length === 0;
  chatUnavailable.hidden = available.length > 0;
  chatUnavailable.textContent =
    'No chat model is configured on this server, so chat is not available here. ' +
    'An operator configures one (a GGUF file or an OpenAI-compatible upstream): see the Configuration guide.';
  chatModel.replaceChildren(
    ...available.map((id) => Object.assign(document.createElement('option'), { value: id, textContent: id })),
  );
}

chatForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  clearError(chatError);
  chatAnswer.textContent = '';
  const send = byId<HTMLButtonElement>('chat-send');
  send.disabled = true;
  try {
    // An empty box sends nothing, so the server's default applies (the boxes' min and max keep the rest in range).
    const maxTokens = byId<HTMLInputElement>('chat-max-tokens').valueAsNumber;
    const temperature = byId<HTMLInputElement>('chat-temperature').valueAsNumber;
    const request = {
      model: chatModel.value as ChatModelId,
      prompt: byId<HTMLTextAreaElement>('chat-prompt').value,
      maxTokens: Number.isFinite(maxTokens) ? maxTokens : undefined,
      temperature: Number.isFinite(temperature) ? temperature : undefined,
    };
    await streamChat(client, request, (token) => chatAnswer.append(token));
  } catch (error) {
    showError(chatError, error);
  } finally {
    send.disabled = false;
  }
});

keyInput.value = savedKey();
void checkKey();

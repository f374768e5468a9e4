// Live transcription from the microphone: a stream session through scribe-client's connectStream, PCM frames from
// the microphone, the running partial shown in place and each final appended. Stop sends what is left, ends the
// session and reports what was billed; a dropped connection ends with the server's error or close code.
import { connectStream, type Client, type StreamSessionCompleted } from '../../client/src/index.ts';
import { capturePcm, SAMPLE_RATE, type PcmCapture } from './pcm-capture.ts';

export interface LiveView {
  onStarted(sessionId: string): void;
  onPartial(text: string): void;
  onFinal(text: string, start: number, end: number): void;
}

export interface LiveSession {
  /** Ends the session cleanly: resolves with what the server billed. */
  stop(): Promise<StreamSessionCompleted>;
  /** Settles when the results end: resolves after a clean end, rejects when the stream broke. */
  readonly finished: Promise<void>;
}

export async function startLive(client: Client, language: string | undefined, view: LiveView): Promise<LiveSession> {
  const connection = await connectStream(client, {
    session: {
      language,
      sample_rate: SAMPLE_RATE,
      encoding: 'pcm_s16le',
      interim_results: true,
      word_timestamps: true,
    },
  });
  view.onStarted(connection.sessionId);
  let capture: PcmCapture | undefined;
  try {
    capture = await capturePcm((frame) => connection.sendAudio(frame));
  } catch (error) {
    connection.close();
    throw error;
  }
  const finished = (async () => {
    for await (const result of connection) {
      if (result.type === 'transcript.partial') view.onPartial(result.text);
      else {
        view.onPartial('');
        if (result.text) view.onFinal(result.text, result.start, result.end);
      }
    }
  })();
  // A broken stream stops the microphone too.
  finished.catch(() => capture?.stop().catch(() => undefined));
  return {
    async stop() {
      await capture?.stop();
      const completed = await connection.end();
      await finished;
      return completed;
    },
    finished,
  };
}

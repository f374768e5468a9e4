// Records the microphone with MediaRecorder (WebM/Opus in Chromium and Firefox, whatever the browser makes
// elsewhere) into a file the server's decoder reads; its length is measured here because a recorded WebM carries
// no duration the browser could read back.
export interface Recording {
  stop(): Promise<{ file: File; seconds: number }>;
}

export async function startRecording(): Promise<Recording> {
  const media = await navigator.mediaDevices.getUserMedia({ audio: true });
  const recorder = new MediaRecorder(media);
  const chunks: Blob[] = [];
  recorder.addEventListener('dataavailable', (event) => chunks.push(event.data));
  const startedAt = performance.now();
  recorder.start();
  return {
    stop() {
      return new Promise((resolve) => {
        recorder.addEventListener('stop', () => {
          for (const track of media.getTracks()) track.stop();
          const type = recorder.mimeType || 'audio/webm';
          const extension = type.includes('ogg') ? 'ogg' : type.includes('mp4') ? 'm4a' : 'webm';
          const file = new File(chunks, `recording.${extension}`, { type });
          resolve({ file, seconds: (performance.now() - startedAt) / 1000 });
        });
        recorder.stop();
      });
    },
  };
}

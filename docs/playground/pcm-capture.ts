// The microphone as 16 kHz mono s16le PCM, the stream protocol's audio format: getUserMedia into an AudioContext
// running at 16 kHz where the browser allows it (resampled here otherwise), an AudioWorklet that forwards each render
// quantum to the page, and frames of 100 ms converted to little-endian 16-bit integers.
export const SAMPLE_RATE = 16_000;
const FRAME_SAMPLES = SAMPLE_RATE / 10;

// Runs in the audio rendering thread; loaded from a blob: URL so the site stays a set of static files.
const workletSource = `
class PcmForwarder extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
}
registerProcessor('pcm-forwarder', PcmForwarder);
`;

export interface PcmCapture {
  stop(): Promise<void>;
}

function toS16le(samples: Float32Array): ArrayBuffer {
  const buffer = new ArrayBuffer(samples.length * 2);
  const view = new DataView(buffer);
  samples.forEach((sample, i) => {
    const clamped = Math.max(-1, Math.min(1, sample));
    view.setInt16(i * 2, clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff, true);
  });
  return buffer;
}

/**
 * An AudioContext at 16 kHz when the browser resamples the microphone for it (Chromium, Safari); Firefox refuses to
 * connect a microphone to a context at another rate, so there the context keeps the device's rate and the page
 * resamples.
 */
async function openContext(media: MediaStream): Promise<{ context: AudioContext; source: MediaStreamAudioSourceNode }> {
  const context = new AudioContext({ sampleRate: SAMPLE_RATE });
  try {
    return { context, source: context.createMediaStreamSource(media) };
  } catch {
    await context.close();
    const native = new AudioContext();
    return { context: native, source: native.createMediaStreamSource(media) };
  }
}

/**
 * Converts a run of chunks at `rate` to 16 kHz: each output sample is the mean of the input samples it covers
 * (microphones run at 44.1 or 48 kHz, so only downsampling is needed).
 */
function resampler(rate: number): (chunk: Float32Array) => Float32Array {
  if (rate === SAMPLE_RATE) return (chunk) => chunk;
  const step = rate / SAMPLE_RATE;
  let sum = 0;
  let count = 0;
  let due = step;
  return (chunk) => {
    const out: number[] = [];
    for (const sample of chunk) {
      sum += sample;
      count += 1;
      if (count >= due) {
        out.push(sum / count);
        sum = 0;
        due = due - count + step;
        count = 0;
      }
    }
    return Float32Array.from(out);
  };
}

export async function capturePcm(onFrame: (frame: ArrayBuffer) => void): Promise<PcmCapture> {
  const media = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  });
  const { context, source } = await openContext(media);
  const resample = resampler(context.sampleRate);
  const moduleUrl = URL.createObjectURL(new Blob([workletSource], { type: 'text/javascript' }));
  try {
    await context.audioWorklet.addModule(moduleUrl);
  } finally {
    URL.revokeObjectURL(moduleUrl);
  }
  const forwarder = new AudioWorkletNode(context, 'pcm-forwarder', { numberOfInputs: 1, numberOfOutputs: 0 });
  let pending = new Float32Array(FRAME_SAMPLES);
  let filled = 0;
  forwarder.port.onmessage = (event: MessageEvent<Float32Array>) => {
    let chunk = resample(event.data);
    while (chunk.length > 0) {
      const take = Math.min(chunk.length, FRAME_SAMPLES - filled);
      pending.set(chunk.subarray(0, take), filled);
      filled += take;
      chunk = chunk.subarray(take);
      if (filled === FRAME_SAMPLES) {
        onFrame(toS16le(pending));
        pending = new Float32Array(FRAME_SAMPLES);
        filled = 0;
      }
    }
  };
  source.connect(forwarder);
  await context.resume();
  return {
    async stop() {
      source.disconnect();
      forwarder.port.onmessage = null;
      for (const track of media.getTracks()) track.stop();
      if (filled > 0) onFrame(toS16le(pending.subarray(0, filled)));
      await context.close();
    },
  };
}

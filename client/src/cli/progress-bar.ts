// The transcription progress line: a bar redrawn in place with \r on a terminal, plain lines (one per change of
// status or whole ten percent) when the output is a file or a pipe.
export interface ProgressBar {
  update(status: string, fraction: number): void;
  done(): void;
}

export function progressBar(stream: NodeJS.WriteStream, width = 30): ProgressBar {
  let lastLine = '';
  let drawn = false;
  return {
    update(status, fraction) {
      const clamped = Math.max(0, Math.min(1, fraction));
      const percent = Math.floor(clamped * 100);
      if (stream.isTTY) {
        const filled = Math.round(clamped * width);
        stream.write(
          `\r\x1b[2K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${status}`,
        );
        drawn = true;
        return;
      }
      const line = `${status} ${Math.floor(percent / 10) * 10}%`;
      if (line !== lastLine) stream.write(`${line}\n`);
      lastLine = line;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

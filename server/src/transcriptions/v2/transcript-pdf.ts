// The PDF result file of a v2 transcription: a header with the file's facts, then the transcript — one paragraph per
// speaker segment (with the speaker's name and start time) when there are speakers, else the plain text. Rendered with
// pdfkit on each download from the stored result, so nothing is kept on disk that could drift from the database.
// Text is set in DejaVu Sans when the system has it (Debian `fonts-dejavu-core`: covers Cyrillic and most scripts);
// without it pdfkit's built-in Helvetica is used, which only covers Latin-1, so other characters become "?".
import { existsSync } from 'node:fs';
import type { TranscriptionResult } from '../../../../generated/client/types.gen.ts';

const UNICODE_FONT_CANDIDATES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/TTF/DejaVuSans.ttf',
];
const unicodeFont = UNICODE_FONT_CANDIDATES.find((path) => existsSync(path));

export interface PdfFacts {
  id: string;
  filename: string;
  language: string;
  createdAt: string;
}

function clock(seconds: number): string {
  const whole = Math.floor(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(whole / 3600))}:${pad(Math.floor((whole % 3600) / 60))}:${pad(whole % 60)}`;
}

/** Latin-1 only, for the built-in font (it has no glyphs beyond it). */
const latin1 = (text: string) => (unicodeFont ? text : text.replace(/[^\x20-\xff\n]/g, '?'));

export async function renderTranscriptPdf(result: TranscriptionResult, facts: PdfFacts): Promise<Buffer> {
  // Loaded with the first PDF: pdfkit and its fonts cost every server process ≈ 0.15 s of CPU at start otherwise.
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: `Transcript of ${facts.filename}`, Creator: 'Scribe', Subject: facts.id },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  if (unicodeFont) doc.font(unicodeFont);

  doc.fontSize(16).text(latin1(`Transcript: ${facts.filename}`));
  doc.moveDown(0.5);
  doc
    .fontSize(9)
    .fillColor('#555555')
    .text(
      latin1(
        `Transcription ${facts.id} · language ${result.language} · duration ${clock(result.duration)} · created ${facts.createdAt}`,
      ),
    );
  doc.moveDown(1).fillColor('#000000').fontSize(11);

  const names = new Map((result.speakers ?? []).map((s) => [s.id, s.name]));
  if (result.segments && result.segments.length > 0) {
    for (const segment of result.segments) {
      const who = names.get(segment.speaker) ?? segment.speaker;
      doc.text(latin1(`${who} [${clock(segment.start)}]: ${segment.text}`), { paragraphGap: 6 });
    }
  } else {
    doc.text(latin1(result.text || '(no speech recognised)'));
  }
  doc.end();
  return done;
}

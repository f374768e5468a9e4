// The guides in docs/guides/: their titles and fenced code blocks. A block's info string says whether the guide test
// runs it (```sh run, ```ts run, ```python run) or why it cannot (```sh norun: <reason>); a block without either is
// an error, so no command in a guide goes untested by accident. A block marked `output` (```text output) is the
// expected output of the code block before it, `…` standing for what changes from run to run (`outputPattern`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const guidesDir = new URL('../../docs/guides/', import.meta.url).pathname;

export interface GuideBlock {
  lang: string;
  /** `run`, or the reason the block is not run. */
  run: boolean;
  reason: string | null;
  code: string;
  line: number;
  /** The `output` block that follows it: what it prints. */
  output?: string;
}

export interface Guide {
  file: string;
  title: string | null;
  blocks: GuideBlock[];
  /** Fences whose info string is neither `run` nor `norun: reason`. */
  unmarked: { line: number; info: string }[];
}

export function readGuide(file: string): Guide {
  const text = readFileSync(join(guidesDir, file), 'utf8');
  const title = text.match(/^# (.+)\n/)?.[1] ?? null;
  const blocks: GuideBlock[] = [];
  const unmarked: Guide['unmarked'] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i]!.match(/^```(\S+)(.*)$/);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    const [lang, info] = [open[1]!, open[2]!.trim()];
    const norun = info.match(/^norun:\s*(\S.*)$/);
    if (info === 'output' && blocks.length > 0 && blocks.at(-1)!.output === undefined)
      blocks.at(-1)!.output = body.join('\n');
    else if (info === 'run') blocks.push({ lang, run: true, reason: null, code: body.join('\n'), line: start + 1 });
    else if (norun) blocks.push({ lang, run: false, reason: norun[1]!, code: body.join('\n'), line: start + 1 });
    else unmarked.push({ line: start + 1, info: `${lang} ${info}`.trim() });
  }
  return { file, title, blocks, unmarked };
}

export const guideFiles = (): string[] =>
  readdirSync(guidesDir)
    .filter((f) => f.endsWith('.md'))
    .sort();

/**
 * An output block as a pattern for what its code block printed (both trimmed): a `…` inside a line stands for any text
 * on that line, a line that is only `…` for any number of lines; everything else must match exactly.
 */
export function outputPattern(output: string): RegExp {
  const lines = output.split('\n');
  const line = (text: string) =>
    text
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^\\n]*');
  const source = lines
    .map((text, n) => {
      const pattern = text === '…' ? '[\\s\\S]*' : line(text);
      if (n === 0) return pattern;
      return `${text === '…' || lines[n - 1] === '…' ? '\\n?' : '\\n'}${pattern}`;
    })
    .join('');
  return new RegExp(`^${source}$`);
}

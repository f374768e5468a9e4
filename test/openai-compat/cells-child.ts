// Runs every cell of the compatibility matrix in this process, with the libraries of one install folder, and prints
// one JSON line per cell: `{ index, failure }` (failure: the message, or null when the cell ran through). Started by
// newest-matrix.test.ts on a Node line newer than the test's own, which the newest releases of the libraries need.
//   node --import tsx cells-child.ts FOLDER BASE_URL API_KEY AUDIO_FILE
import { readFileSync } from 'node:fs';
import { MATRIX } from './matrix.ts';
import { loaderFor, messageOf, runCell } from './matrix-runner.ts';

const [folder, baseURL, apiKey, audioFile] = process.argv.slice(2);
if (!folder || !baseURL || !apiKey || !audioFile) {
  console.error('usage: cells-child.ts FOLDER BASE_URL API_KEY AUDIO_FILE');
  process.exit(2);
}
const context = { load: loaderFor(folder), baseURL, apiKey, audio: readFileSync(audioFile) };
for (const [index, cell] of MATRIX.entries()) {
  const failure = await runCell(cell, context);
  console.log(JSON.stringify({ index, failure: failure === undefined ? null : messageOf(failure) }));
}

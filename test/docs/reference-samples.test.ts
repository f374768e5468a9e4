// The code samples in the rendered reference (docs/site/api.html, Redoc), in a real browser: the language switcher of
// an operation offers every language its `x-codeSamples` has (curl, TypeScript, Python, and the OpenAI SDK where it
// applies; Payload beside them when the operation takes a body), and choosing one shows that sample's code.
import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { operations } from '../contract/documents.ts';
import { launchChromium } from '../support/chromium.ts';
import { serveDirectory } from '../support/static-server.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('reference samples');
let browser: Browser | undefined;
let site: Awaited<ReturnType<typeof serveDirectory>> | undefined;

interface Sample {
  label: string;
  source: string;
}

test.before(async () => {
  execFileSync(process.execPath, [`${root}scripts/build-docs.mjs`], { cwd: root, stdio: 'pipe' });
  site = await serveDirectory(`${root}docs/site`);
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  await site?.close();
});

/** The operation's page of the reference, with its sample panel's language menu open. */
async function openSwitcher(page: Page, operationId: string): Promise<string[]> {
  await page.goto(`${site!.url}/api.html#operation/${operationId}`, { waitUntil: 'networkidle' });
  await page.getByText('curl', { exact: true }).first().waitFor({ timeout: 15_000 });
  await page.getByText('curl', { exact: true }).first().click();
  const menu = page.getByRole('menuitem');
  await menu.first().waitFor({ timeout: 5_000 });
  return (await menu.allInnerTexts()).map((text) => text.trim());
}

for (const operationId of ['listModels', 'calculatePrice', 'getBillingUsage', 'createOpenAiAudioTranscription']) {
  test(`${operationId}: the switcher offers each of its samples, and each shows its code`, async () => {
    const op = operations.find((o) => o.operationId === operationId)!;
    const samples = op['x-codeSamples'] as Sample[];
    const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      const offered = await openSwitcher(page, operationId);
      const expected = samples.map((s) => s.label);
      if (op.requestBody) expected.push('Payload');
      assert.equal(offered, expected);
      for (const sample of samples) {
        await page.getByRole('menuitem', { name: sample.label, exact: true }).click();
        // The sample's first line of code (an import, or the curl command) is what the panel now shows.
        const firstLine = sample.source.split('\n').find((line) => line.trim())!;
        await page
          .getByText(firstLine.trim(), { exact: false })
          .first()
          .waitFor({ timeout: 5_000 })
          .catch(() => assert.unreachable(`${operationId} (${sample.label}): "${firstLine}" is not shown`));
        // Back to the menu for the next language.
        await page.getByText(sample.label, { exact: true }).first().click();
      }
    } finally {
      await page.close();
    }
  });
}

test.run();

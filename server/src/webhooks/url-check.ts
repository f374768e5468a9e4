// The registration check of a webhook URL (create, and update with a new url): the same address guard as media
// links, so an endpoint cannot point the server at a private, loopback or link-local address unless the operator
// allowed it (SCRIBE_URL_ALLOW_HOSTS). A host that does not resolve (yet) is accepted: nothing is reachable there
// now, and every delivery checks the address again before it connects.
import { errors } from '../http/api-error.ts';
import { parseClientUrl } from '../http/client-url.ts';
import { UrlRefusedError, type AddressGuard } from '../media/address-guard.ts';

/** How long registration waits for DNS before accepting the URL (the delivery checks again anyway). */
const CHECK_TIMEOUT_MS = 5000;

export async function checkWebhookUrl(guard: AddressGuard, url: string): Promise<void> {
  const parsed = parseClientUrl(url, 'url');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([guard.check(parsed), timeout]);
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error;
    if (error.reason === 'address') {
      throw errors.invalidParameter('url', 'url points to a private, loopback or link-local address.');
    }
    if (error.reason === 'scheme' || error.reason === 'invalid_url') {
      throw errors.invalidParameter('url', 'url must be an http or https URL with a host.');
    }
    // `dns`: accepted (see above).
  } finally {
    clearTimeout(timer);
  }
}

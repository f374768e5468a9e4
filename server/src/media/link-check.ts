// The check of a media link when a task is created (v3 `url`, v2 `source_url`): a link to a private, loopback,
// link-local or reserved address is the contract's 400 at once rather than a task that fails later. The download
// checks the address again before it connects (DNS may answer differently by then). A host that does not resolve
// (yet) is accepted here: nothing is reachable there now, and the download reports it.
import { errors } from '../http/api-error.ts';
import { UrlRefusedError, type AddressGuard } from './address-guard.ts';

/** How long creation waits for DNS before accepting the link (the download checks again anyway). */
const CHECK_TIMEOUT_MS = 5000;

export async function checkMediaLink(guard: AddressGuard, url: URL, param: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([guard.check(url), timeout]);
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error;
    if (error.reason === 'address') {
      throw errors.invalidParameter(
        param,
        `${param} points to a private, loopback or link-local address; only the server's SCRIBE_URL_ALLOW_HOSTS setting allows such a host.`,
      );
    }
    if (error.reason === 'scheme' || error.reason === 'invalid_url') {
      throw errors.invalidParameter(param, `${param} must be an http or https URL with a host.`);
    }
    // `dns`: accepted (see above).
  } finally {
    clearTimeout(timer);
  }
}

// The mutant catalog: each mutant breaks one rule of the contract in what the server answers, and names the suite
// run that should notice (phases and operations). One file per area, as the checks are one file per check.
import { STATUS } from './status.ts';
import { BODIES } from './bodies.ts';
import { HEADERS } from './headers.ts';
import { AUTH } from './auth.ts';
import { VALIDATION } from './validation.ts';
import { STATE } from './state.ts';
import { BILLING } from './billing.ts';
import { STREAMS } from './streams.ts';
import { DERIVED } from './derived.ts';
import { SHAPES } from './shapes.ts';
import { ENDPOINTS } from './endpoints.ts';
import { ERRORS } from './errors.ts';
import { PARAMS } from './params.ts';
import { EVENTS } from './events.ts';
import { DEFAULTS } from './defaults.ts';
import { FLOWS } from './flows.ts';
import { REQUESTS } from './requests.ts';
import { REFUSALS } from './refusals.ts';
import { LIFECYCLE } from './lifecycle.ts';
import { MONEY } from './money.ts';
import { V2 } from './v2.ts';
import { SESSIONS } from './sessions.ts';
import { CHAT } from './chat.ts';
import type { Mutant } from '../proxy.ts';

export const MUTANTS: Mutant[] = [
  ...STATUS,
  ...BODIES,
  ...HEADERS,
  ...AUTH,
  ...VALIDATION,
  ...STATE,
  ...BILLING,
  ...STREAMS,
  ...DERIVED,
  ...SHAPES,
  ...ENDPOINTS,
  ...ERRORS,
  ...PARAMS,
  ...EVENTS,
  ...DEFAULTS,
  ...FLOWS,
  ...REQUESTS,
  ...REFUSALS,
  ...LIFECYCLE,
  ...MONEY,
  ...V2,
  ...SESSIONS,
  ...CHAT,
];

// Stream tickets: the single credential of a WebSocket connection (it rides in the URL so browsers can connect).
// 24 random bytes in base64url after `tkt_`; only the SHA-256 is stored, so a database leak gives no usable ticket.
import { createHash, randomBytes } from 'node:crypto';

export const newTicket = (): string => `tkt_${randomBytes(24).toString('base64url')}`;

export const ticketHash = (ticket: string): string => createHash('sha256').update(ticket).digest('hex');

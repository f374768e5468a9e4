// Which endings of a stream session are charged (asyncapi: "Ending and billing", StreamCloseCode). The interface
// document charges a session on its end and frees only a connection that drops, so every ending the client or its
// behaviour brings about is an end: `end` (1000), a close frame from the client with any code, the idle timeout (4408),
// a block of the account (4401), an invalid frame (4400), audio too far ahead (4429) and a balance that cannot extend
// the reservation (4402). Each captures the audio transcribed until then (0 s is 0 minutes). Free are a connection
// that went away without a close frame (the document's drop) and the server's own failure (1011) or shutdown (1001).

/** What ws reports when the connection ended without a close frame (RFC 6455 §7.1.5): the document's drop. */
export const NO_CLOSE_FRAME = 1006;

/** Close codes the server sends for its own reasons: the session ends uncharged. */
const SERVER_SIDE = new Set([1001, 1011]);

/** Whether a close the server sends with `code` charges what was transcribed. */
export const serverCloseCharges = (code: number): boolean => !SERVER_SIDE.has(code);

/** Whether the client's side of the close (the code ws reports for it) charges what was transcribed. */
export const clientCloseCharges = (code: number): boolean => code !== NO_CLOSE_FRAME;

// scribe-client: the fetch client and types generated from the Scribe contract, and the helpers no generator makes
// (webhook verification, v2 request signing, waiting for a task, the WebSocket stream protocol and paced audio).
export * from '../../generated/client/index.ts';
export {
  createClient,
  createConfig,
  formDataBodySerializer,
  jsonBodySerializer,
  mergeHeaders,
  type Auth,
  type Client,
  type ClientOptions as ClientConfigOptions,
  type Config,
  type CreateClientConfig,
  type RequestOptions,
  type RequestResult,
  type ResponseStyle,
} from '../../generated/client/client/index.ts';
export { ScribeApiError, type ScribeErrorBody } from './api-error.ts';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './verify-webhook.ts';
export { signV2Request, v2CanonicalString, type V2Credentials } from './sign-v2-request.ts';
export { ChatStreamError, streamChatCompletion } from './stream-chat-completion.ts';
export { waitForTranscription, type WaitForTranscriptionOptions } from './wait-for-transcription.ts';
export {
  connectStream,
  StreamError,
  type ConnectStreamOptions,
  type StreamClose,
  type StreamConnection,
  type StreamResult,
  type StreamServerFrame,
  type WebSocketConstructor,
  type WebSocketLike,
} from './connect-stream.ts';
export { openStreamSocket, type StreamSocket, type StreamSocketOptions } from './stream-socket.ts';
export { sendPacedAudio, type PacedAudioOptions, type PacedAudioTarget } from './send-paced-audio.ts';

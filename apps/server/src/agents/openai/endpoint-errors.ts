import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';

/** A failure of the OpenAI-compatible endpoint; its message is what the failed session shows. */
export class OpenAIEndpointError extends Error {
  override readonly name = 'OpenAIEndpointError';
  constructor(
    message: string,
    /** The HTTP status, when the endpoint answered with one. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Statuses worth another attempt: rate limits and server-side failures. */
export function isRetryableStatus(status: number | undefined): status is number {
  return status === 429 || (status !== undefined && status >= 500);
}

/** Where the request went, for messages that say what to check. */
export interface EndpointFacts {
  baseURL: string;
  timeoutMs: number;
  attempts: number;
}

/**
 * Turn what the SDK threw into an error that says what happened and what to check. Errors that
 * are not the endpoint's (the agent's own, a sink's) come back untouched.
 */
export function describeEndpointFailure(error: unknown, facts: EndpointFacts): unknown {
  if (error instanceof APIConnectionTimeoutError) return silentEndpoint(facts);
  if (error instanceof APIConnectionError) {
    return new OpenAIEndpointError(`Could not reach the OpenAI-compatible endpoint at ${facts.baseURL}: ${rootCause(error)}.`);
  }
  if (error instanceof APIError) {
    const status = error.status;
    const message = providerMessage(error);
    if (status === undefined) return new OpenAIEndpointError(`OpenAI-compatible endpoint reported an error while streaming: ${message}`);
    if (status === 401 || status === 403 || status === 404) {
      return new OpenAIEndpointError(`OpenAI-compatible endpoint refused the request (${status}): ${message}`, status);
    }
    if (isRetryableStatus(status)) {
      const what = status === 429 ? 'still rate limited' : 'still failing';
      return new OpenAIEndpointError(`OpenAI-compatible endpoint ${what} after ${facts.attempts} attempts (${status}): ${message}`, status);
    }
    return new OpenAIEndpointError(`OpenAI-compatible endpoint rejected the request (${status}): ${message}`, status);
  }
  if (error instanceof SyntaxError) {
    return new OpenAIEndpointError(`OpenAI-compatible endpoint sent a stream chunk that is not JSON: ${error.message}`);
  }
  return error;
}

/** The endpoint went quiet for longer than the configured timeout. */
export function silentEndpoint(facts: EndpointFacts): OpenAIEndpointError {
  return new OpenAIEndpointError(
    `OpenAI-compatible endpoint at ${facts.baseURL} sent nothing for ${facts.timeoutMs} ms (INTERTHOUGHT_OPENAI_TIMEOUT_MS); giving up.`,
  );
}

const MESSAGE_LIMIT = 500;

/** The provider's own explanation: `error.message` of its JSON body, or the body text. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  let message = typeof body?.message === 'string' ? body.message : error.message;
  if (error.status !== undefined) message = message.replace(new RegExp(`^${error.status} `), '');
  message = message.trim() || 'no explanation given';
  return message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message;
}

/** fetch wraps the reason (ECONNREFUSED, ENOTFOUND …) in "fetch failed"; the innermost cause says the most. */
function rootCause(error: Error): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

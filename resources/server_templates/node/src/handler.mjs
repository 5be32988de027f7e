// What answers a message: your HTTP endpoint (HANDLER_URL) or, without one, an echo.
//
// The endpoint receives POST {"message": <A2A Message JSON>, "contextId": "..."} and
// answers with an A2A Message JSON object whose "parts" is not empty, for example
//   {"role": "ROLE_AGENT", "parts": [{"text": "Hello"}]}

import { Message } from '@a2a-js/sdk';

// A failure the task reports to the client as its `failed` status message.
export class HandlerError extends Error {}

async function readLimited(response, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > limit) {
      throw new HandlerError(`the handler's response is over ${limit} bytes (MAX_HANDLER_RESPONSE_BYTES)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function partsOf(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HandlerError('the handler answered with something that is not JSON');
  }
  if (json === null || typeof json !== 'object' || !Array.isArray(json.parts)) {
    throw new HandlerError('the handler must answer with a Message object that has a "parts" list');
  }
  let message;
  try {
    message = Message.fromJSON(json);
  } catch (err) {
    throw new HandlerError(`the handler's Message does not parse: ${err.message}`);
  }
  const parts = message.parts.filter((part) => part?.content !== undefined);
  if (parts.length === 0) throw new HandlerError('the handler answered with a Message without parts');
  return parts;
}

// Returns `(message, contextId, signal) => Promise<Part[]>`. `signal` aborts the call on
// the deadline, a cancel or shutdown; the caller turns the reason into the task's status.
export function makeHandler(config) {
  if (!config.handlerUrl) {
    return async (message) => message.parts;
  }
  const url = config.handlerUrl.href;
  return async (message, contextId, signal) => {
    let response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: Message.toJSON(message), contextId }),
        signal,
        redirect: 'error',
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw new HandlerError(`the handler could not be reached: ${err.cause?.code ?? err.message}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new HandlerError(`the handler answered HTTP ${response.status}`);
    }
    try {
      return partsOf(await readLimited(response, config.maxHandlerResponseBytes));
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw err;
    } finally {
      await response.body?.cancel().catch(() => {});
    }
  };
}

// The agent: every message becomes a task that forwards it to the handler.
//
// submitted -> working -> an artifact "response" with the handler's parts -> completed;
// or failed, with a message saying why (deadline, limits, a handler fault).
// Tasks live in memory only: a restart forgets them.

import crypto from 'node:crypto';

import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';

import { HandlerError } from './handler.mjs';

const now = () => new Date().toISOString();

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text, taskId, contextId) {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

class Stop extends Error {}

export class ForwardingExecutor {
  constructor(config, handler, log) {
    this.config = config;
    this.handler = handler;
    this.log = log;
    this.running = new Map(); // taskId -> { controller, contextId } of its handler call
  }

  status(taskId, contextId, state, text) {
    return AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state, message: text === undefined ? undefined : agentMessage(text, taskId, contextId), timestamp: now() },
      metadata: undefined,
    });
  }

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const message = ctx.userMessage;
    if (!ctx.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [message],
          metadata: undefined,
        }),
      );
    }
    const fail = (text) => bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_FAILED, text));
    const parts = message.parts?.length ?? 0;
    if (parts === 0 || parts > this.config.maxParts) {
      fail(`the message has ${parts} parts; 1 to ${this.config.maxParts} are accepted (MAX_PARTS)`);
      return;
    }
    if (this.running.size >= this.config.maxConcurrentTasks) {
      fail(`the server is busy: ${this.running.size} tasks are running (MAX_CONCURRENT_TASKS); try again later`);
      return;
    }
    const controller = new AbortController();
    const seconds = this.config.handlerTimeoutS;
    const timer = setTimeout(
      () => controller.abort(new Stop(`the handler did not answer within ${seconds} s (HANDLER_TIMEOUT_S)`)),
      seconds * 1000,
    );
    this.running.set(taskId, { controller, contextId });
    try {
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_WORKING));
      const answer = await this.handler(message, contextId, controller.signal);
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: crypto.randomUUID(),
            name: 'response',
            description: '',
            parts: answer,
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
    } catch (err) {
      if (err instanceof Stop && err.canceled) return; // cancelTask published the status
      if (err instanceof Stop || err instanceof HandlerError) {
        fail(err.message);
      } else {
        this.log(`task ${taskId}: ${err?.stack ?? err}`);
        fail('the server failed while handling the message');
      }
    } finally {
      clearTimeout(timer);
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId, bus) {
    const entry = this.running.get(taskId);
    if (entry) {
      const reason = new Stop('canceled');
      reason.canceled = true;
      entry.controller.abort(reason);
    }
    bus.publish(this.status(taskId, entry?.contextId ?? '', TaskState.TASK_STATE_CANCELED, 'Canceled'));
  }

  // Shutdown: every running handler call ends now and its task fails with this reason.
  abortAll(reason) {
    for (const { controller } of this.running.values()) controller.abort(new Stop(reason));
  }
}

// quietClientFaults: a client's protocol fault becomes one log line and never reaches the socket's
// other error listeners (graphql-ws's prints a stack); every other error and event passes through.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { quietClientFaults } from './hardening.js';

function socketWithListener() {
  const socket = new EventEmitter() as unknown as WebSocket;
  const log = { warn: vi.fn() };
  quietClientFaults(socket, log);
  const errors: unknown[] = [];
  socket.on('error', (err) => errors.push(err));
  return { socket, log, errors };
}

describe('quietClientFaults', () => {
  it('logs a client fault once, by its code, and keeps it from the error listeners', () => {
    const { socket, log, errors } = socketWithListener();
    const fault = Object.assign(new RangeError('Max payload size exceeded'), {
      code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
    });
    expect(socket.emit('error', fault)).toBe(true);
    expect(errors).toEqual([]);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn).toHaveBeenCalledWith(
      { code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' },
      'WebSocket closed: the client broke the protocol',
    );
  });

  it('passes every other error and event through unchanged', () => {
    const { socket, log, errors } = socketWithListener();
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    socket.emit('error', reset);
    socket.emit('error', new Error('no code'));
    const messages: unknown[] = [];
    socket.on('message', (m) => messages.push(m));
    socket.emit('message', 'hello');
    expect(errors).toEqual([reset, expect.objectContaining({ message: 'no code' })]);
    expect(messages).toEqual(['hello']);
    expect(log.warn).not.toHaveBeenCalled();
  });
});

// An in-process publish/subscribe of one kind of message.
import { EventEmitter } from 'node:events';

export class EventBus<T> {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per open dashboard page: no fixed ceiling.
    this.emitter.setMaxListeners(0);
  }

  emit(message: T): void {
    this.emitter.emit('message', message);
  }

  /** Returns the function that stops listening. */
  subscribe(listener: (message: T) => void): () => void {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }
}

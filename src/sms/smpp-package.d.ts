// The part of the npm `smpp` package (0.5.x, plain JavaScript) ringhook uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';

  export interface PDU {
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    isResponse(): boolean;
    response(options?: Record<string, unknown>): PDU;
    [field: string]: unknown;
  }

  export interface SessionOptions {
    host?: string;
    port?: number;
    tls?: boolean;
    rejectUnauthorized?: boolean;
    servername?: string;
    auto_enquire_link_period?: number;
    [option: string]: unknown;
  }

  type Params = Record<string, unknown>;
  type Callback = (pdu: PDU) => void;

  export class Session extends EventEmitter {
    constructor(options: SessionOptions);
    socket: import('node:net').Socket;
    send(pdu: PDU, responseCallback?: Callback, sendCallback?: Callback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    bind_transceiver(params: Params, responseCallback?: Callback): boolean;
    submit_sm(params: Params, responseCallback?: Callback): boolean;
    enquire_link(params: Params, responseCallback?: Callback): boolean;
    unbind(params: Params, responseCallback?: Callback): boolean;
  }

  export function connect(options: SessionOptions, listener?: () => void): Session;

  export const errors: Record<string, number>;
  export const ESME_ROK: number;
  export const ESME_RTHROTTLED: number;
}

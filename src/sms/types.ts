// The one interface every SMS gateway kind implements, and the values it exchanges.

export interface SmsRequest {
  /** Destination in E.164 form, e.g. "+15551234567". */
  to: string;
  /** The full SMS text (see buildSmsText); sent as one SMS, possibly in concatenated parts. */
  text: string;
  /** The call_id this SMS backs up; logged and, where the gateway allows, echoed back. */
  reference: string;
}

export type SmsResult =
  | {
      status: 'sent';
      /** The id delivery reports will carry (gateway id, or our own id for Kannel dlr-url); null if none. */
      messageId: string | null;
      /** How many SMS parts the gateway was given (1 for a single SMS or a message_payload submit). */
      parts: number;
    }
  | {
      status: 'failed';
      error: string;
      /** The gateway certainly took nothing (refused the connection, 503, a transient bind refusal): it may be tried again later. */
      notSent?: boolean;
    };

export type DeliveryStatus = 'delivered' | 'failed' | 'pending';

export interface DeliveryReport {
  /** The messageId returned by send(). */
  messageId: string;
  /** delivered: reached the phone; failed: will not; pending: intermediate (queued, at the SMSC). */
  status: DeliveryStatus;
  /** The gateway's own words (SMPP stat/err, Kannel %d/%A, Twilio MessageStatus). */
  detail: string;
}

export interface SmsCheck {
  ok: boolean;
  detail: string;
}

export interface SmsSender {
  /** Which kind of gateway this is ("none", "kannel", "twilio", "generic", "smpp"). */
  readonly kind: string;
  send(req: SmsRequest): Promise<SmsResult>;
  /** A cheap health check for `doctor` and /health; never sends an SMS. */
  check(): Promise<SmsCheck>;
  close(): Promise<void>;
  /** Registers a listener for delivery reports; returns a function that removes it. */
  onDeliveryReport(cb: (r: DeliveryReport) => void): () => void;
  /**
   * HTTP gateways only: feed the parameters of a delivery callback request (query string and/or
   * form body of the request to RINGHOOK_SMS_DLR_URL). Returns the parsed report (also passed to
   * the listeners), or null when the parameters are not a report of this gateway.
   */
  handleDeliveryCallback?(params: URLSearchParams): DeliveryReport | null;
}

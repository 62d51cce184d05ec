// Every default of the configuration, named, with the reason for its value. Messages and the
// README quote these, so a default is changed here only.

export const DEFAULTS = {
  /** Listen on every IPv4 interface: the charting platform must reach the webhook from the internet. */
  host: '0.0.0.0',
  /** HTTPS port: 8443 so that no root privilege is needed; put 443 in front with a proxy or a port forward. */
  port: 8443,
  /** Every accepted alert is on disk before its 200. */
  dbSync: 'full',
  logLevel: 'info',
  /** Seconds of silence after which a node sharing PostgreSQL is taken for dead (it beats every second). */
  nodeTimeoutSec: 10,
  /** Without a certificate, one is made (and a warning logged): HTTPS from the first start. */
  selfSigned: true,

  /** Seconds a phone rings before the call counts as not answered. */
  ringTimeoutSec: 30,
  /**
   * The longest any call may last, ring included, enforced by Asterisk itself (it holds with serve
   * gone). The longest call: a ring of 30 s, the machine check (≤ 25 s), then the message spoken
   * three times (once, and "2" twice), each at most serve's own 5-minute bound (the 3,600-character
   * cap is about 4 minutes, with the intro, the prompt and the 5 s wait for a digit): 15.9 minutes.
   */
  maxCallSec: 1_000,
  /**
   * The most simultaneous calls; unset, half the RTP ports (RTP and RTCP per call) up to this. A burst
   * at 50 calls a second holds ~650 at once (a ring, the message, the wait for a digit).
   */
  maxCallsMost: 1000,
  /** New calls a second: what most providers allow a trunk without asking. */
  trunkCps: 10,
  /** An answered call is checked for an answering machine (TALK_DETECT) while the message plays. */
  answeringMachineDetection: true,
  /** Seconds a queued call stays worth placing (after a restart, or while Asterisk is down). */
  callFreshnessSec: 300,
  ttsEngine: 'flite',
  /** flite's diphone voice at the telephone's own 8 kHz: a few times cheaper to make than slt, and no conversion (see core/speech/speech-plan). */
  burstVoice: 'kal',
  /** SIP listens on every interface so that a softphone on the LAN can register. */
  sipHost: '0.0.0.0',
  sipPort: 5060,
  /** STUN's own port (RFC 5389). */
  stunPort: 3478,
  /** SIP over TLS (RFC 5630's port); bound only when a trunk uses TLS. */
  sipTlsPort: 5061,
  /** The managed Asterisk's HTTP/ARI port, on 127.0.0.1 only. */
  ariPort: 8088,
  rtpPorts: '10000-20000',
  /** Behind NAT, the networks reached without it: the private ranges, carrier-grade NAT and loopback. */
  sipLocalNets: '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,127.0.0.0/8',
  softphoneUser: 'ringhook',
  trunkRegister: false,
  /** Most providers offer no SRTP; sdes or dtls where they do. */
  trunkMediaEncryption: 'none',

  sms: {
    gateway: 'none',
    /**
     * One alert is one SMS, which may be several concatenated parts: 8 hold a 500-character alert
     * with its prefix in GSM 7-bit (4 parts) and in UCS-2 (8 parts) when it has no characters beyond
     * the Basic Multilingual Plane; longer texts (emoji-heavy) are cut to fit.
     */
    maxParts: 8,
    /** Time for one gateway request or SMPP response: the target is "SMS handed over in under 1 s". */
    timeoutMs: 10_000,
    /** Attempts while the gateway certainly did not take the message (refused, 429/503, throttled). */
    retryAttempts: 3,
    /** First pause between attempts; doubled each time. */
    retryDelayMs: 500,
    twilioBaseUrl: 'https://api.twilio.com',
    httpMethod: 'POST',
    httpBodyFormat: 'json',
    httpSuccessStatus: '2xx',
    smppPort: 2775,
    smppsPort: 3550,
    /** International number, E.164. */
    smppDestTon: 1,
    smppDestNpi: 1,
    /** Every 30 s: below the idle timeout of the SMSCs seen in practice (60 s and up). */
    smppEnquireLinkS: 30,
    smppConnectTimeoutMs: 5_000,
    smppReconnectMinMs: 1_000,
    smppReconnectMaxMs: 30_000,
    smppThrottleRetries: 3,
    smppThrottleDelayMs: 1_000,
    smppDeliveryReceipts: true,
  },
} as const;

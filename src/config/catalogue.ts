// The configuration's catalogue, in one place: for every variable the schema (config/index.ts)
// reads, its default and what it means, as people read it. config/docs.ts renders docs/configuration.md
// from it and from the schema's rules (the allowed values); a unit test fails when a variable is
// missing here or the page is stale (npm run docs:config regenerates it).
/** One row of the reference: variables that go together share it. */
export interface CatalogueEntry {
  names: readonly string[];
  /** The default as people read it ("—": none). */
  default: string;
  meaning: string;
  /** What may be set, where the schema's own rule cannot say it (a file, free text). */
  allowed?: string;
}

/** Serving, the data, calls and telephony, nodes: in the order people set them up. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    names: ['RINGHOOK_DATA_DIR'],
    default:
      "`/var/lib/ringhook` for root and the systemd unit's user, else `$XDG_DATA_HOME/ringhook` (`~/.local/share/ringhook`); an earlier install's `./data` (in the current folder, or beside the checkout) is still found and used",
    meaning:
      "database, certificate, secrets, Asterisk's files, speech cache (with the managed Asterisk: at most 71 characters of letters, digits, `. _ - /`, as Asterisk puts a socket under it; `serve` says so otherwise). One `serve` per data dir: a second is refused while the first holds `serve.lock` (a file lock the kernel releases when its holder dies, whatever its pid; `serve.pid` names the holder); the CLI commands work alongside",
  },
  { names: ['RINGHOOK_HOST'], default: '`0.0.0.0`', meaning: 'HTTPS listen address' },
  { names: ['RINGHOOK_PORT'], default: '`8443` (`443` with ACME)', meaning: 'HTTPS port' },
  {
    names: ['RINGHOOK_TLS_CERT', 'RINGHOOK_TLS_KEY'],
    default: '—',
    meaning: 'PEM certificate and key (both or neither)',
    allowed: 'PEM files',
  },
  {
    names: ['RINGHOOK_SELF_SIGNED'],
    default: '`on`',
    meaning:
      '`off`: refuse to start without `RINGHOOK_TLS_CERT`/`KEY` (with `RINGHOOK_ACME_DOMAIN` a self-signed certificate still bridges the seconds before the first one arrives)',
  },
  {
    names: ['RINGHOOK_HTTP_PORT'],
    default: '— (`80` with ACME)',
    meaning:
      'optional plain-HTTP port: 403 to everyone but trusted proxies; with ACME it answers the challenges and redirects the rest to HTTPS',
  },
  {
    names: ['RINGHOOK_ACME_DOMAIN'],
    default: '—',
    meaning:
      'one or more DNS names (comma-separated) to get a certificate for from an ACME authority: see "Putting it on the internet". Then `RINGHOOK_PORT` defaults to `443` and `RINGHOOK_PUBLIC_URL` to `https://<first name>`. Not with `RINGHOOK_TLS_CERT`',
  },
  {
    names: ['RINGHOOK_ACME_EMAIL'],
    default: '—',
    meaning: "the authority's contact for the account (optional, recommended)",
  },
  {
    names: ['RINGHOOK_ACME_DIRECTORY'],
    default: "Let's Encrypt (`https://acme-v02.api.letsencrypt.org/directory`)",
    meaning: "another ACME directory, e.g. Let's Encrypt staging",
  },
  {
    names: ['RINGHOOK_ACME_CA_FILE'],
    default: "— (the system's list)",
    meaning: "PEM file of the authority the directory's own HTTPS certificate chains to (a private authority)",
    allowed: 'a PEM file',
  },
  {
    names: ['RINGHOOK_TRUST_PROXY'],
    default: '—',
    meaning: 'comma-separated proxy addresses/CIDRs, e.g. `127.0.0.1,10.0.0.0/8`',
    allowed: 'IP addresses and CIDRs, comma-separated',
  },
  {
    names: ['RINGHOOK_WEBHOOK_SOURCES'],
    default: '`any`',
    meaning:
      'who may send alerts to every account: `any`, `tradingview` (its four published addresses) or comma-separated addresses/CIDRs, e.g. `203.0.113.0/24,2001:db8::/32`; others get 403 `source_not_allowed` ([owner controls](owner-controls.md))',
    allowed: '`any`, `tradingview`, or IP addresses and CIDRs, comma-separated',
  },
  {
    names: ['RINGHOOK_CALLBACK_ALLOW'],
    default: '— (public addresses only)',
    meaning:
      'ranges status callbacks may reach although they are loopback, private, carrier-grade NAT, link-local (cloud metadata) or multicast, e.g. `10.1.2.0/24` for a receiver on your own network; checked on the address connected to, after DNS ([callbacks](callbacks.md))',
    allowed: 'IP addresses and CIDRs, comma-separated',
  },
  {
    names: ['RINGHOOK_MAX_CONNECTIONS'],
    default:
      'the open-file limit less an eighth of it (at least 256 kept for the database, Asterisk, the SMS gateways and files), between 64 and 4096',
    meaning:
      'open connections of the HTTPS and plain-HTTP listeners together (one budget, not one each), trusted proxies included; at the cap a new connection takes the place of the one idle longest (kept alive between requests, or not served yet), unless its address already holds its share (as many as the average address), and is refused only when every connection is in the middle of a request. Above half full, keep-alive between requests is cut from 65 s to 15–30 s',
  },
  {
    names: ['RINGHOOK_MAX_CONNECTIONS_PER_ADDRESS'],
    default: '`256`',
    meaning:
      'open connections from one address (an IPv6 /64); trusted proxies are not held to it. A connection must finish its TLS handshake within 10 s and send its first request within 10 s more, or it is closed',
  },
  {
    names: ['RINGHOOK_PUBLIC_URL'],
    default: '`https://<host>:<port>`',
    meaning: 'the base shown in webhook URLs, e.g. `https://alerts.example.com`',
  },
  {
    names: ['RINGHOOK_LOG_LEVEL'],
    default: '`info`',
    meaning:
      "`debug`, `info`, `warn`, `error` (JSON lines on stderr; see Operations, Logs): `warn` leaves out the line per alert, call and SMS; `debug` adds each alert's text",
  },
  {
    names: ['RINGHOOK_DB_SYNC'],
    default: '`full`',
    meaning:
      '`full`: every accepted alert is on disk before the 200; `normal`: survives a crash of ringhook, not a power cut (faster)',
  },
  {
    names: ['RINGHOOK_DATABASE_URL'],
    default: '— (SQLite in the data dir)',
    meaning:
      '`postgres://user:password@host:5432/ringhook?sslmode=verify-full`: the store is PostgreSQL, shared by several nodes (see "Several nodes"); it needs `RINGHOOK_SECRET_KEY`, the same on every node. The password is never logged or printed. A host not on this machine must be reached with its certificate verified (see "The way to the database")',
  },
  {
    names: ['RINGHOOK_DATABASE_CA_FILE'],
    default: "— (the system's authorities)",
    meaning:
      "PEM file of the authority that signed PostgreSQL's certificate: TLS is then on, and the certificate must chain to it and name the host",
    allowed: 'a PEM file',
  },
  {
    names: ['RINGHOOK_DATABASE_UNVERIFIED'],
    default: '`off`',
    meaning: '`on`: allow a database host not on this machine without a verified certificate (a private network only)',
  },
  {
    names: ['RINGHOOK_NODE_ID'],
    default: 'the host name',
    meaning:
      'this node among those sharing PostgreSQL (letters, digits, `.`, `-`, `_`); keep it the same across restarts of a node: a node that restarts ends the calls it had in progress itself',
  },
  {
    names: ['RINGHOOK_NODE_TIMEOUT'],
    default: '`10`',
    meaning:
      'seconds a node may be silent before the others take it for dead (each node says it is alive every second): its calls in progress end `interrupted` (never redialed; the SMS backup goes out once) and its queued alerts are dialed by the others',
  },
  {
    names: ['RINGHOOK_TELEPHONY'],
    default: '`managed` (or `external` when `RINGHOOK_ARI_URL` is set)',
    meaning:
      '`managed`: ringhook runs Asterisk; `external`: your Asterisk; `off`: accept and record alerts, place no call',
  },
  {
    names: ['RINGHOOK_ARI_URL', 'RINGHOOK_ARI_USER', 'RINGHOOK_ARI_PASSWORD'],
    default: '—',
    meaning: "an external Asterisk's ARI (e.g. `http://127.0.0.1:8088`)",
  },
  {
    names: ['RINGHOOK_TRUNK_URI'],
    default: '—',
    meaning: 'where calls go, `sip:host[:port]`; unset: the local softphone',
  },
  {
    names: ['RINGHOOK_TRUNK_USERNAME', 'RINGHOOK_TRUNK_PASSWORD'],
    default: '—',
    meaning: 'trunk credentials (both or neither)',
  },
  { names: ['RINGHOOK_TRUNK_REGISTER'], default: '`off`', meaning: 'register to the trunk' },
  {
    names: ['RINGHOOK_SIP_EXTERNAL_ADDRESS'],
    default: '—',
    meaning:
      'behind NAT: the public address or dynamic-DNS name given to the provider for SIP and audio (a private address is refused)',
  },
  {
    names: ['RINGHOOK_SIP_LOCAL_NET'],
    default: 'the private, CGNAT and loopback ranges',
    meaning: 'comma-separated networks reached without NAT, e.g. `192.168.1.0/24`',
  },
  {
    names: ['RINGHOOK_STUN_SERVER'],
    default: '—',
    meaning:
      'behind NAT without an external address: `host[:port]` (3478) of a STUN server asked for the public address at start',
  },
  {
    names: ['RINGHOOK_TRUNK_TRANSPORT'],
    default: '`tls` for a `sips:` URI, else `udp`',
    meaning: '`udp`, `tcp` or `tls` toward the provider',
  },
  {
    names: ['RINGHOOK_TRUNK_MEDIA_ENCRYPTION'],
    default: '`none`',
    meaning: '`sdes` (SRTP keyed in the SDP; needs TLS) or `dtls` (SRTP keyed by DTLS)',
  },
  {
    names: ['RINGHOOK_TRUNK_CA_FILE'],
    default: "the system's authorities",
    meaning: "PEM file of the authorities the provider's TLS certificate must chain to",
    allowed: 'a PEM file',
  },
  {
    names: ['RINGHOOK_SIP_TLS_PORT'],
    default: '`5061`',
    meaning: 'local port of SIP over TLS (bound only when a trunk uses TLS)',
  },
  {
    names: [
      'RINGHOOK_TRUNK2_URI',
      'RINGHOOK_TRUNK2_USERNAME',
      'RINGHOOK_TRUNK2_PASSWORD',
      'RINGHOOK_TRUNK2_REGISTER',
      'RINGHOOK_TRUNK2_TRANSPORT',
      'RINGHOOK_TRUNK2_MEDIA_ENCRYPTION',
    ],
    default: "as the first trunk's (register `off`, media encryption `none`)",
    meaning: 'the backup trunk, the same settings (needs `RINGHOOK_TRUNK_URI`)',
  },
  {
    names: ['RINGHOOK_CALLER_ID'],
    default: '—',
    meaning: 'number shown to the callee, e.g. `+14155550100` or `"Alerts" <+14155550100>`',
  },
  { names: ['RINGHOOK_RING_TIMEOUT'], default: '`30`', meaning: 'seconds of ringing before `no_answer` (5–120)' },
  {
    names: ['RINGHOOK_MAX_CALL_SECONDS'],
    default: '`1000`',
    meaning:
      'the longest any call may last, ring included (10–86,400, longer than `RINGHOOK_RING_TIMEOUT`): set on each call at originate (`TIMEOUT(absolute)`), so Asterisk itself hangs it up even when serve is gone. The default is a little above the longest possible call: a 30 s ring, the machine check, then the message (at most 3,600 characters, about 4 minutes, with the intro, the keys, the prompt and the wait for a digit, each playing bounded by serve at 5 minutes) heard three times. "2" has no count of its own: a caller who presses it again and again is hung up here. An external Asterisk needs `func_timeout` loaded (Asterisk\'s default)',
  },
  {
    names: ['RINGHOOK_AMD'],
    default: '`on`',
    meaning:
      'answering-machine detection while the message plays (managed Asterisk, `TALK_DETECT`): a voicemail gets the whole message again after its beep and the call ends `voicemail` with the SMS backup; `off`: no detection (the message starts at once on answer either way)',
  },
  {
    names: ['RINGHOOK_MAX_CALLS'],
    default: 'half the RTP ports, at most 1,000 (1,000 with the default range)',
    meaning:
      'simultaneous calls; more wait in a queue (1–1,000, and two RTP ports a call). A home line or a small trunk allows few channels: set it to what your provider allows. A burst paced at `RINGHOOK_TRUNK_CPS` holds about CPS × 13 lines at once (an answered call holds its line ~13 s: a ring, the message, the wait for a digit), ~650 at 50 a second: fewer lines slow the burst down',
  },
  {
    names: ['RINGHOOK_TRUNK_CPS'],
    default: '`10`',
    meaning:
      'new calls a second the provider allows (1–1000): calls start at this pace, oldest alert first, never more in any one-second window (a call counts from when it is asked of Asterisk until Asterisk reports it dialing, and for the second after that: a slow or loaded Asterisk never bunches the INVITEs); speech is made in the same order, at most one engine per core at once',
  },
  {
    names: ['RINGHOOK_CALL_FRESHNESS'],
    default: '`300`',
    meaning: 'seconds a queued call stays worth placing (after a restart or while Asterisk is down)',
  },
  {
    names: ['RINGHOOK_TTS_ENGINE'],
    default: '`flite`',
    meaning:
      "`flite` or `espeak-ng`: the server's engine (English accounts with the default voice, and the fallback of every voice)",
  },
  {
    names: ['RINGHOOK_VOICE'],
    default: '`slt` (flite), `en-us` (espeak-ng)',
    meaning:
      "the voice: flite's `kal`, `kal16`, `awb`, `awb_time`, `rms`, `slt` or a `.flitevox` file (anything else is refused: flite would speak it in its default voice); espeak-ng's as `espeak-ng --voices` lists them (`ringhook doctor` says when it has no such voice)",
  },
  {
    names: ['RINGHOOK_BURST_VOICE'],
    default: '`kal`',
    meaning:
      "the voice English calls speak with when the speech queued before theirs would make their own late for the first possible answer, or while more calls wait to be placed than the trunk takes in a ring (a burst: see [The burst](performance.md#the-burst); a voice that is merely slow delays its call instead, see [Languages and voices](speech.md#languages-and-voices)): `kal` (flite's 8 kHz diphone voice, the telephone's own rate; ~10× cheaper to make than slt), `kal16`, `awb`, `rms`, `slt`, or `off` (every call keeps its own voice and waits for it before it is placed). The call's timeline says when it was used",
  },
  {
    names: ['RINGHOOK_TTS_COMMAND'],
    default: '—',
    meaning:
      'your own speech engine: a command line, run through `/bin/sh`, that reads the text on stdin and writes a WAV on stdout (PCM, 8–192 kHz, 1–8 channels), e.g. `piper --model /opt/voices/en_US-lessac-medium.onnx --output_file /dev/stdout`; converted to 8 kHz mono, cached, bounded to 10 s and 20 MB; when it fails, hangs or writes something else, `RINGHOOK_TTS_ENGINE` speaks instead (a warning is logged) and the command rests a minute',
  },
  {
    names: ['RINGHOOK_JA_DICTIONARY'],
    default: '`auto`',
    meaning:
      "where Japanese calls' kanji readings come from (kuromoji's IPADIC, about 17 MB of files, loaded once on the first Japanese speech: see [Japanese](speech.md#japanese)): `auto` (the kuromoji package in node_modules, or the single executable's own copy), `off` (a built-in table of market words; any other kanji is said かんじ and noted in the call's history), or a folder holding kuromoji's `.dat.gz` files. The folder, its files and every folder above it must belong to root or to the user serve runs as and be writable by no one else (as sshd's StrictModes asks; a sticky folder above, such as /tmp, may be writable by all): serve refuses to start otherwise, or when the folder is missing, with the fix in one line and the folder's real path. Each file is read and expanded within 64 MiB (the largest is 40 MiB), all of them within 128 MiB",
    allowed: '`auto`, `off` or an absolute folder path',
  },
  {
    names: ['RINGHOOK_SIP_HOST', 'RINGHOOK_SIP_PORT'],
    default: '`0.0.0.0`, `5060`',
    meaning: "the managed Asterisk's SIP listener",
  },
  { names: ['RINGHOOK_ARI_PORT'], default: '`8088`', meaning: "the managed Asterisk's ARI port (127.0.0.1 only)" },
  { names: ['RINGHOOK_RTP_PORTS'], default: '`10000-20000`', meaning: 'RTP range' },
  {
    names: ['RINGHOOK_SOFTPHONE_USER', 'RINGHOOK_SOFTPHONE_PASSWORD'],
    default: '`ringhook`, generated',
    meaning: 'the local extension a LAN softphone registers to',
  },
  {
    names: ['RINGHOOK_MEDIA_DIR'],
    default: '`<data dir>/media`',
    meaning:
      "where speech WAV files are written; an external Asterisk must see this folder at the same path (the managed one gets it bind-mounted); 0700/0600, or 0750/0640 through the folder's group with an external Asterisk",
    allowed: 'a folder',
  },
  {
    names: ['RINGHOOK_CACHE_DIR'],
    default: '`~/.cache/ringhook`',
    meaning:
      "where the Asterisk root file system is cached, the resident flite is built (see [The burst](performance.md#the-burst)), and the single executable's build keeps its runtime and addon",
    allowed: 'a folder',
  },
  {
    names: ['RINGHOOK_METRICS_TOKEN'],
    default: '— (`/metrics` for this machine only)',
    meaning: 'when set (16+ characters), `/metrics` wants `Authorization: Bearer <token>`, from anywhere',
  },
  {
    names: ['RINGHOOK_SECRET_KEY'],
    default: '`<data dir>/api-keys.secret`, made once (0600)',
    meaning:
      'the 32-byte key (64 hex characters or base64, e.g. `openssl rand -hex 32`) that seals the api_keys in the database (AES-256-GCM; the webhook compares an HMAC). `serve` and the CLI must use the same one; a database sealed with another key is refused with a message saying what to do',
    allowed: '32 bytes as 64 hex characters or base64',
  },
];

/** Read by the provisioning scripts, not by serve (config/rules.ts: SCRIPT_VARIABLES). */
export const SCRIPT_CATALOGUE: readonly CatalogueEntry[] = [
  {
    names: ['RINGHOOK_DEBIAN_MIRROR'],
    default: "the Debian archive in the host's apt sources",
    meaning: "where provisioning fetches the root file system's packages (apt's `Acquire::http::Proxy` is used too)",
    allowed: 'an http(s) URL of a Debian archive',
  },
];
